package dev.hearth.server.openapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Json;
import dev.hearth.server.http.Contract.Answer;
import dev.hearth.server.http.Contract.Body;
import dev.hearth.server.http.Route;
import dev.hearth.server.http.Scope;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The OpenAPI 3.1 document of the API, made from the route table (paths, methods, who may call,
 * idempotency) and the contracts declared with each route (bodies and answers as wire records).
 */
public final class OpenApiDocument {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    static final String NDJSON = "application/x-ndjson";

    private final Schemas schemas = new Schemas();
    private final TreeMap<String, ObjectNode> errorResponses = new TreeMap<>();

    private OpenApiDocument() {
    }

    public static ObjectNode of(List<Route> routes, String version) {
        return new OpenApiDocument().document(routes, version);
    }

    private ObjectNode document(List<Route> routes, String version) {
        var doc = NODES.objectNode();
        doc.put("openapi", "3.1.0");
        doc.putObject("info").put("title", "Hearth API").put("version", version).put("description",
                "Sandboxed computers and PostgreSQL databases on your own machines. The reference with examples "
                        + "is docs/api.md; every error is the envelope {error: {code, message, details, request_id}}.");
        // Relative to where this document is served (/v1/openapi.json), so one copy fits every server.
        doc.putArray("servers").addObject().put("url", "/v1");
        var paths = new TreeMap<String, ObjectNode>();
        for (var route : routes) {
            paths.computeIfAbsent(route.template(), t -> pathItem(t))
                    .set(route.method().toLowerCase(Locale.ROOT), operation(route));
        }
        doc.set("paths", NODES.objectNode().setAll(paths));
        var components = doc.putObject("components");
        schemas.components().put("Error", error());
        components.set("schemas", NODES.objectNode().setAll(new TreeMap<>(schemas.components())));
        components.set("responses", NODES.objectNode().setAll(errorResponses));
        components.set("securitySchemes", NODES.objectNode().set("bearer", bearer()));
        doc.putArray("security").addObject().putArray("bearer");
        return doc;
    }

    private static ObjectNode pathItem(String template) {
        var item = NODES.objectNode();
        var parameters = NODES.arrayNode();
        for (String segment : template.split("/")) {
            if (segment.startsWith("{")) {
                parameters.add(parameter(segment.substring(1, segment.length() - 1), "path", true,
                        Schemas.type("string"), "id (or name, where the route says so)"));
            }
        }
        if (!parameters.isEmpty()) {
            item.set("parameters", parameters);
        }
        return item;
    }

    private ObjectNode operation(Route route) {
        var contract = route.contract();
        var op = NODES.objectNode();
        op.put("operationId", operationId(route));
        op.put("summary", contract.summary());
        op.putArray("tags").add(tag(route.template()));
        if (route.scope() instanceof Scope.Public) {
            op.putArray("security");
        } else {
            op.put("x-minimum-role", minimumRole(route.scope()));
        }
        var parameters = NODES.arrayNode();
        contract.query().forEach(q -> parameters.add(parameter(q.name(), "query", false, Schemas.type(q.type()),
                q.description())));
        idempotencyKey(route, parameters);
        if (!parameters.isEmpty()) {
            op.set("parameters", parameters);
        }
        requestBody(contract.body(), contract.example(), op);
        op.set("responses", responses(route));
        return op;
    }

    private static String minimumRole(Scope scope) {
        return switch (scope) {
            case Scope.Public p -> "anyone";
            case Scope.SignedIn s -> "signed-in";
            case Scope.Operator o -> "operator";
            case Scope.InWorkspace w -> w.action().minimum().wire();
            case Scope.OfResource r -> r.action().minimum().wire();
        };
    }

    private static void idempotencyKey(Route route, ArrayNode parameters) {
        if (route.mutation() && !route.streamsBody()) {
            parameters.add(parameter("Idempotency-Key", "header", route.keyRequired(), Schemas.type("string"),
                    route.keyRequired() ? "required: a retry with the same key answers the first result"
                            : "optional: a retry with the same key answers the first result"));
        }
    }

    private void requestBody(Body body, String example, ObjectNode op) {
        var content = NODES.objectNode();
        boolean required = true;
        switch (body) {
            case Body.None none -> {
                return;
            }
            case Body.Json json -> {
                var media = content.putObject("application/json");
                media.set("schema", schemas.input(json.shape()));
                if (!example.isEmpty()) {
                    media.set("example", parsed(example));
                }
                required = json.required();
            }
            case Body.JsonOrForm json -> {
                content.putObject("application/json").set("schema", schemas.input(json.shape()));
                content.putObject("application/x-www-form-urlencoded").set("schema", schemas.input(json.shape()));
            }
            case Body.Bytes bytes -> content.putObject(bytes.mediaType()).putObject("schema")
                    .put("type", "string").put("contentMediaType", bytes.mediaType());
        }
        op.putObject("requestBody").put("required", required).set("content", content);
    }

    private static JsonNode parsed(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("a route's example is not JSON: " + json, e);
        }
    }

    private ObjectNode responses(Route route) {
        var responses = NODES.objectNode();
        var contract = route.contract();
        for (int status : contract.statuses()) {
            var response = responses.putObject(Integer.toString(status));
            response.put("description", status == 101 ? "switching to a WebSocket" : "success");
            content(contract.answer(), response);
        }
        var byStatus = Errors.of(route).stream().collect(Collectors.groupingBy(ErrorCode::status, TreeMap::new,
                Collectors.toCollection(TreeSet::new)));
        byStatus.forEach((status, codes) -> responses.set(Integer.toString(status), errorResponse(codes)));
        return responses;
    }

    private void content(Answer answer, ObjectNode response) {
        switch (answer) {
            case Answer.Json json -> response.putObject("content").putObject("application/json")
                    .set("schema", schemas.of(json.shape()));
            case Answer.Bytes bytes -> response.putObject("content").putObject(bytes.mediaType()).putObject("schema")
                    .put("type", "string").put("contentMediaType", bytes.mediaType());
            case Answer.Lines lines -> response.putObject("content").putObject(NDJSON)
                    .set("itemSchema", schemas.of(lines.line()));
            case Answer.JsonOrLines both -> {
                var content = response.putObject("content");
                content.putObject("application/json").set("schema", schemas.of(both.json()));
                content.putObject(NDJSON).set("itemSchema", schemas.of(both.line()));
            }
            case Answer.Socket socket -> {
            }
        }
    }

    /** A reference to the shared response for these codes (named by them: few routes differ). */
    private ObjectNode errorResponse(Set<ErrorCode> codes) {
        String name = codes.stream().map(ErrorCode::code).collect(Collectors.joining("."));
        errorResponses.computeIfAbsent(name, n -> {
            var response = NODES.objectNode().put("description", n.replace(".", ", "));
            response.putObject("content").putObject("application/json").set("schema", errorWith(codes));
            return response;
        });
        return NODES.objectNode().put("$ref", "#/components/responses/" + name);
    }

    /** The envelope, its code narrowed to those this route answers with this status. */
    private static ObjectNode errorWith(Set<ErrorCode> codes) {
        var names = NODES.arrayNode();
        codes.forEach(c -> names.add(c.code()));
        var narrowed = NODES.objectNode();
        narrowed.putObject("properties").putObject("error").putObject("properties").putObject("code").set("enum", names);
        var all = NODES.arrayNode().add(Schemas.ref("Error")).add(narrowed);
        return NODES.objectNode().set("allOf", all);
    }

    private static ObjectNode error() {
        var codes = NODES.arrayNode();
        for (var code : ErrorCode.values()) {
            codes.add(code.code());
        }
        var inner = NODES.objectNode();
        inner.set("code", Schemas.type("string").set("enum", codes));
        inner.set("message", Schemas.type("string"));
        inner.set("details", Schemas.type("object").put("description",
                "what the code needs, e.g. field, allowed, retry_after_seconds"));
        inner.set("request_id", Schemas.type("string"));
        var required = NODES.arrayNode().add("code").add("message").add("details").add("request_id");
        var properties = NODES.objectNode();
        properties.set("error", Schemas.closedObject(inner, required));
        return Schemas.closedObject(properties, NODES.arrayNode().add("error"));
    }

    private static ObjectNode bearer() {
        return NODES.objectNode().put("type", "http").put("scheme", "bearer").put("bearerFormat", "JWT")
                .put("description", "An access token: from POST /v1/auth/token (a key principal's signed assertion, "
                        + "RFC 7523) or from the email login (POST /v1/auth/email/verify, /v1/auth/refresh).");
    }

    private static ObjectNode parameter(String name, String in, boolean required, ObjectNode schema,
                                        String description) {
        var parameter = NODES.objectNode().put("name", name).put("in", in).put("required", required);
        parameter.put("description", description);
        parameter.set("schema", schema);
        return parameter;
    }

    /** {@code POST /computers/{cmp}/sleep} → {@code postComputersCmpSleep}: unique as the routes are. */
    static String operationId(Route route) {
        var id = new StringBuilder(route.method().toLowerCase(Locale.ROOT));
        for (String segment : route.template().split("[/._{}-]")) {
            if (!segment.isEmpty()) {
                id.append(Character.toUpperCase(segment.charAt(0))).append(segment.substring(1));
            }
        }
        return id.toString();
    }

    /** The kind of thing the route is about: {@code /workspaces/{ws}/computers} is about computers. */
    private static String tag(String template) {
        var segments = template.split("/");
        if (segments.length > 3 && segments[1].equals("workspaces")) {
            return segments[3];
        }
        return segments[1].startsWith(".") ? "auth" : segments[1];
    }
}
