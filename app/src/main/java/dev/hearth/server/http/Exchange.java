package dev.hearth.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Json;
import dev.hearth.api.tenancy.Role;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.store.Cursor;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.tenancy.Caller;
import dev.hearth.server.tenancy.Membership;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** One request as the handlers see it: parsed, authenticated and authorized already. */
public final class Exchange {
    private final String requestId;
    private final String path;
    private final Map<String, String> params;
    private final Map<String, List<String>> query;
    private final Map<String, String> headers;
    private final byte[] body;
    private final InputStream bodyStream;
    private final Caller caller;
    private final Membership authorized;
    private final Peer peer;

    public Exchange(String requestId, String path, Map<String, String> params, Map<String, List<String>> query,
                    Map<String, String> headers, byte[] body, InputStream bodyStream, Caller caller,
                    Membership authorized, Peer peer) {
        this.bodyStream = bodyStream;
        this.requestId = requestId;
        this.path = path;
        this.params = params;
        this.query = query;
        this.headers = headers;
        this.body = body;
        this.caller = caller;
        this.authorized = authorized;
        this.peer = peer;
    }

    public String requestId() {
        return requestId;
    }

    /** The client's connection, to learn whether it is still there during a long answer. */
    public Peer peer() {
        return peer;
    }

    public String path() {
        return path;
    }

    public String param(String name) {
        return params.get(name);
    }

    /** The signed-in caller; only routes that are not public have one. */
    public Caller caller() {
        return caller;
    }

    /** The workspace the route's scope resolved and authorized. */
    public Workspace workspace() {
        return authorized.workspace();
    }

    /** The caller's role in {@link #workspace()}. */
    public Role role() {
        return authorized.role();
    }

    /** The workspace and the caller's role there, as the route's scope authorized them. */
    public Membership membership() {
        return authorized;
    }

    public Optional<String> header(String name) {
        return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
    }

    /** The headers whose names start with {@code prefix} (any case), by the rest of their name, lower-cased. */
    public Map<String, String> headersStartingWith(String prefix) {
        String lower = prefix.toLowerCase(Locale.ROOT);
        var found = new java.util.TreeMap<String, String>();
        headers.forEach((name, value) -> {
            if (name.startsWith(lower) && name.length() > lower.length()) {
                found.put(name.substring(lower.length()), value);
            }
        });
        return found;
    }

    /** Every query parameter, in the order given. */
    Map<String, List<String>> queryParams() {
        return query;
    }

    public Optional<String> query(String name) {
        return single(query, name);
    }

    /** A timestamp query parameter ({@code ?since=2026-11-21T06:01:19Z}), or null when absent. */
    public java.time.Instant timeQuery(String name) {
        return query(name).map(text -> {
            try {
                return java.time.Instant.parse(text);
            } catch (java.time.format.DateTimeParseException e) {
                throw ApiException.invalidField(name, "must be a timestamp (ISO 8601, e.g. 2026-11-21T06:01:19Z)");
            }
        }).orElse(null);
    }

    /** Every value of a query parameter that may be given more than once, in order. */
    public List<String> queries(String name) {
        return query.getOrDefault(name, List.of());
    }

    /** A query parameter given at most once; twice is an error naming it. */
    static Optional<String> single(Map<String, List<String>> query, String name) {
        var values = query.get(name);
        if (values == null) {
            return Optional.empty();
        }
        if (values.size() > 1) {
            throw ApiException.invalidField(name, "given more than once");
        }
        return Optional.of(values.getFirst());
    }

    public byte[] rawBody() {
        return body;
    }

    /** The body as it arrives, on routes that stream theirs (see {@link Route#streamsBody()}). */
    public InputStream bodyStream() {
        if (bodyStream == null) {
            throw new IllegalStateException("this route reads its body whole");
        }
        return bodyStream;
    }

    /** The page the client asked for: {@code limit} 1..100 (default 50) and an opaque {@code cursor}. */
    public PageRequest page() {
        int limit = query("limit").map(Exchange::parseLimit).orElse(PageRequest.DEFAULT_LIMIT);
        return new PageRequest(limit, Cursor.decode(query("cursor").orElse(null)));
    }

    private static int parseLimit(String text) {
        try {
            int limit = Integer.parseInt(text);
            if (limit >= 1 && limit <= PageRequest.MAX_LIMIT) {
                return limit;
            }
        } catch (NumberFormatException notANumber) {
            // same answer as out of range
        }
        throw ApiException.invalidField("limit", "must be a whole number from 1 to " + PageRequest.MAX_LIMIT);
    }

    /** The JSON body bound strictly to {@code type}: unknown fields, wrong types and bad JSON are errors. */
    public <T> T body(Class<T> type) {
        if (body.length == 0) {
            throw new ApiException(ErrorCode.INVALID_REQUEST, "a JSON object body is required");
        }
        requireJson();
        try {
            T value = Json.mapper().readValue(body, type);
            if (value == null) {
                throw new ApiException(ErrorCode.INVALID_REQUEST, "a JSON object body is required");
            }
            RequiredFields.check(value);
            return value;
        } catch (UnrecognizedPropertyException e) {
            throw ApiException.invalidField(fieldPath(e), "unknown field");
        } catch (MismatchedInputException e) {
            String field = fieldPath(e);
            throw ApiException.invalidField(field.isEmpty() ? "body" : field, expected(e));
        } catch (JsonMappingException e) {
            if (e.getCause() instanceof StreamConstraintsException) {
                throw tooDeep();
            }
            if (e.getCause() instanceof ApiException refused) {
                throw refused; // a record's own check, which names its field
            }
            String field = fieldPath(e);
            throw ApiException.invalidField(field.isEmpty() ? "body" : field, "is not a valid value here");
        } catch (StreamConstraintsException e) {
            throw tooDeep();
        } catch (JsonProcessingException e) {
            var at = e.getLocation();
            throw new ApiException(ErrorCode.INVALID_REQUEST, "malformed JSON: " + e.getOriginalMessage()
                    + (at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr()));
        } catch (IOException e) {
            throw new ApiException(ErrorCode.INVALID_REQUEST, "unreadable body");
        }
    }

    private static ApiException tooDeep() {
        return new ApiException(ErrorCode.INVALID_REQUEST, "the JSON body nests deeper than " + Json.MAX_DEPTH
                + " levels");
    }

    /** For routes that take no body: none, or an empty JSON object ({@code {}}); anything else is refused. */
    public void noBody() {
        if (body.length == 0) {
            return;
        }
        requireJson();
        try {
            var node = Json.mapper().readTree(body);
            if (node != null && node.isObject() && node.isEmpty()) {
                return;
            }
        } catch (IOException e) {
            // refused below, like any other body
        }
        throw new ApiException(ErrorCode.INVALID_REQUEST, "this route takes no body (send none, or {})");
    }

    /** The body, or an empty instance when the client sent none (routes whose body is optional). */
    public <T> T bodyOr(Class<T> type, T empty) {
        return body.length == 0 ? empty : body(type);
    }

    /** Exactly {@code application/json}, with no parameter but {@code charset=utf-8}. */
    private void requireJson() {
        String type = header("content-type").orElse("");
        var parts = type.split(";");
        boolean json = parts[0].strip().equalsIgnoreCase("application/json");
        for (int i = 1; i < parts.length && json; i++) {
            json = parts[i].strip().replace("\"", "").equalsIgnoreCase("charset=utf-8");
        }
        if (!json) {
            throw new ApiException(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "send the body as Content-Type: application/json "
                    + "(charset=utf-8 if any; got " + (type.isEmpty() ? "none" : type) + ")");
        }
    }

    private static String fieldPath(JsonMappingException e) {
        return e.getPath().stream()
                .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                .collect(Collectors.joining(".")).replace(".[", "[");
    }

    /** What the field must be, in the API's words: never a Java type's name. */
    private static String expected(MismatchedInputException e) {
        if (e instanceof InvalidNullException) {
            return "must not be null";
        }
        return e.getTargetType() == null ? "has the wrong type" : "must be " + WireTypes.describe(e.getTargetType());
    }
}
