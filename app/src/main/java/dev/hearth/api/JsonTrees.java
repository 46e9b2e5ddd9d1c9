package dev.hearth.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * JSON trees read and written with jackson-core's streaming parser and generator alone, for the
 * client and the CLI. The CLI starts a JVM per command, and Jackson's {@code ObjectMapper} costs
 * ~60 ms there before it reads a byte (its default date format loads the JDK's locale data); a tree
 * of maps, lists, strings, numbers and booleans needs none of it. Values of any other type (the
 * API's records) are handed to {@link Json#mapper()}, so nothing written changes.
 */
public final class JsonTrees {
    private static final JsonFactory FACTORY = new JsonFactory();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private JsonTrees() {
    }

    public static ObjectNode object() {
        return NODES.objectNode();
    }

    public static ArrayNode array() {
        return NODES.arrayNode();
    }

    /** The tree of a whole JSON document; IOException when it is not exactly one JSON value. */
    public static JsonNode read(byte[] json) throws IOException {
        try (var parser = FACTORY.createParser(json)) {
            return document(parser);
        }
    }

    public static JsonNode read(String json) throws IOException {
        try (var parser = FACTORY.createParser(json)) {
            return document(parser);
        }
    }

    /** {@code value} as compact JSON. */
    public static String text(Object value) {
        return new String(bytes(value, false), StandardCharsets.UTF_8);
    }

    /** {@code value} as JSON in Jackson's default pretty layout (what {@code --json} prints). */
    public static String pretty(Object value) {
        return new String(bytes(value, true), StandardCharsets.UTF_8);
    }

    public static byte[] bytes(Object value) {
        return bytes(value, false);
    }

    private static byte[] bytes(Object value, boolean pretty) {
        var out = new ByteArrayOutputStream();
        try (var generator = FACTORY.createGenerator(out)) {
            if (pretty) {
                generator.setPrettyPrinter(new DefaultPrettyPrinter());
            }
            write(generator, value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static JsonNode document(JsonParser parser) throws IOException {
        if (parser.nextToken() == null) {
            throw new IOException("no JSON value");
        }
        JsonNode node = value(parser);
        if (parser.nextToken() != null) {
            throw new IOException("more than one JSON value");
        }
        return node;
    }

    private static JsonNode value(JsonParser parser) throws IOException {
        return switch (parser.currentToken()) {
            case START_OBJECT -> {
                var object = NODES.objectNode();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    object.set(name, value(parser));
                }
                yield object;
            }
            case START_ARRAY -> {
                var array = NODES.arrayNode();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    array.add(value(parser));
                }
                yield array;
            }
            case VALUE_STRING -> NODES.textNode(parser.getText());
            case VALUE_NUMBER_INT -> switch (parser.getNumberType()) {
                case INT -> NODES.numberNode(parser.getIntValue());
                case LONG -> NODES.numberNode(parser.getLongValue());
                default -> NODES.numberNode(parser.getBigIntegerValue());
            };
            case VALUE_NUMBER_FLOAT -> NODES.numberNode(parser.getDoubleValue());
            case VALUE_TRUE -> NODES.booleanNode(true);
            case VALUE_FALSE -> NODES.booleanNode(false);
            case VALUE_NULL -> NODES.nullNode();
            default -> throw new IOException("unexpected " + parser.currentToken());
        };
    }

    private static void write(JsonGenerator out, Object value) throws IOException {
        switch (value) {
            case null -> out.writeNull();
            case JsonNode node -> node(out, node);
            case CharSequence text -> out.writeString(text.toString());
            case Boolean bool -> out.writeBoolean(bool);
            case Integer n -> out.writeNumber(n);
            case Long n -> out.writeNumber(n);
            case Double n -> out.writeNumber(n);
            case BigDecimal n -> out.writeNumber(n);
            case BigInteger n -> out.writeNumber(n);
            case Map<?, ?> map -> {
                out.writeStartObject();
                for (var entry : map.entrySet()) {
                    out.writeFieldName(String.valueOf(entry.getKey()));
                    write(out, entry.getValue());
                }
                out.writeEndObject();
            }
            case Iterable<?> items -> {
                out.writeStartArray();
                for (var item : items) {
                    write(out, item);
                }
                out.writeEndArray();
            }
            default -> out.writeRawValue(Json.mapper().writeValueAsString(value));
        }
    }

    private static void node(JsonGenerator out, JsonNode node) throws IOException {
        switch (node.getNodeType()) {
            case OBJECT -> {
                out.writeStartObject();
                for (var field : node.properties()) {
                    out.writeFieldName(field.getKey());
                    node(out, field.getValue());
                }
                out.writeEndObject();
            }
            case ARRAY -> {
                out.writeStartArray();
                for (var item : node) {
                    node(out, item);
                }
                out.writeEndArray();
            }
            case STRING -> out.writeString(node.textValue());
            case BOOLEAN -> out.writeBoolean(node.booleanValue());
            case NUMBER -> number(out, node);
            case NULL, MISSING -> out.writeNull();
            default -> out.writeRawValue(Json.mapper().writeValueAsString(node));
        }
    }

    private static void number(JsonGenerator out, JsonNode node) throws IOException {
        switch (node.numberType()) {
            case INT -> out.writeNumber(node.intValue());
            case LONG -> out.writeNumber(node.longValue());
            case BIG_INTEGER -> out.writeNumber(node.bigIntegerValue());
            case BIG_DECIMAL -> out.writeNumber(node.decimalValue());
            case FLOAT -> out.writeNumber(node.floatValue());
            default -> out.writeNumber(node.doubleValue());
        }
    }
}
