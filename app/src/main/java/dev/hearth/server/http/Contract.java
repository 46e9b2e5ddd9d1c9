package dev.hearth.server.http;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a route takes and answers, declared where the route is registered: the OpenAPI document is
 * made from these and the wire records they name, so there is no second list of routes to keep.
 */
public record Contract(String summary, Body body, Answer answer, List<Param> query, Set<Integer> statuses,
                       String example) {
    public static final Contract UNDECLARED = new Contract("", new Body.None(), new Answer.Json(new Shape.Any()),
            List.of(), Set.of(200), "");

    /** A value on the wire: a Java type seen through the API's JSON mapping, or a shape made here. */
    public sealed interface Shape {
        /** A wire record, enum or scalar; {@code nullable} when the field may be JSON null. */
        record Of(Type type, boolean nullable) implements Shape {
        }

        record ArrayOf(Shape item) implements Shape {
        }

        /** An object with exactly these fields, every one present. */
        record Fields(Map<String, Shape> fields) implements Shape {
        }

        /** One of these. */
        record OneOf(List<Shape> choices) implements Shape {
        }

        /** The error envelope, {@code {error: {code, message, details, request_id}}}. */
        record Error() implements Shape {
        }

        /** Any JSON object (a JWK set, a free-form detail). */
        record Any() implements Shape {
        }
    }

    public sealed interface Body {
        record None() implements Body {
        }

        /** A JSON body; {@code required} false when an empty body means defaults. */
        record Json(Shape shape, boolean required) implements Body {
        }

        /** JSON, or the same fields as an HTML form ({@code application/x-www-form-urlencoded}). */
        record JsonOrForm(Shape shape) implements Body {
        }

        /** Raw bytes streamed as they arrive (a file, a tar, stdin). */
        record Bytes(String mediaType) implements Body {
        }
    }

    public sealed interface Answer {
        record Json(Shape shape) implements Answer {
        }

        /** The bytes of a file or an archive. */
        record Bytes(String mediaType) implements Answer {
        }

        /** One JSON value a line ({@code application/x-ndjson}), as output arrives. */
        record Lines(Shape line) implements Answer {
        }

        /** JSON, or NDJSON lines when the request says {@code Accept: application/x-ndjson}. */
        record JsonOrLines(Shape json, Shape line) implements Answer {
        }

        /** A WebSocket upgrade. */
        record Socket() implements Answer {
        }
    }

    /** A query parameter: its JSON Schema type ({@code string}, {@code integer}, {@code boolean}). */
    public record Param(String name, String type, String description) {
    }

    public static Shape of(Type type) {
        return new Shape.Of(type, false);
    }

    public static Shape nullable(Type type) {
        return new Shape.Of(type, true);
    }

    public static Shape arrayOf(Type item) {
        return new Shape.ArrayOf(of(item));
    }

    /** {@code {noun: value, operations: [ids]}}, the answer about one resource. */
    public static Shape one(String noun, Type type) {
        return fields(noun, of(type), "operations", arrayOf(String.class));
    }

    /** {@code {nouns: [...], next_cursor, has_more}}, a page of a list. */
    public static Shape page(String noun, Type item) {
        return fields(noun, arrayOf(item), "next_cursor", nullable(String.class), "has_more", of(boolean.class));
    }

    /** {@code {noun: [...]}}, a whole list, not paged. */
    public static Shape all(String noun, Type item) {
        return fields(noun, arrayOf(item));
    }

    /** An object of these fields: names and shapes alternating. */
    public static Shape fields(Object... namesAndShapes) {
        var fields = new LinkedHashMap<String, Shape>();
        for (int i = 0; i < namesAndShapes.length; i += 2) {
            fields.put((String) namesAndShapes[i], (Shape) namesAndShapes[i + 1]);
        }
        return new Shape.Fields(fields);
    }

    Contract withSummary(String text) {
        return new Contract(text, body, answer, query, statuses, example);
    }

    Contract withBody(Body value) {
        return new Contract(summary, value, answer, query, statuses, example);
    }

    Contract withAnswer(Answer value) {
        return new Contract(summary, body, value, query, statuses, example);
    }

    Contract withParam(Param param) {
        var params = new ArrayList<>(query);
        params.add(param);
        return new Contract(summary, body, answer, List.copyOf(params), statuses, example);
    }

    Contract withStatuses(Integer... values) {
        return new Contract(summary, body, answer, query, new TreeSet<>(List.of(values)), example);
    }

    Contract withExample(String json) {
        return new Contract(summary, body, answer, query, statuses, json);
    }
}
