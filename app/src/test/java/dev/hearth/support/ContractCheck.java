package dev.hearth.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.hearth.api.Json;
import dev.hearth.server.HearthServer;
import dev.hearth.server.http.RequestObserver;
import dev.hearth.server.http.Route;
import dev.hearth.server.openapi.OpenApiDocument;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Checks every JSON answer a test server gives against the OpenAPI document's schema for its route
 * and status, and every JSON request it accepted against the schema of the route's body, with a JSON
 * Schema validator (networknt, draft 2020-12). What does not fit is kept and fails the test class
 * when its server closes.
 */
public final class ContractCheck implements RequestObserver {
    private static volatile JsonNode document;
    private static final Map<String, Schema> SCHEMAS = new ConcurrentHashMap<>();
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    private final List<String> violations = new ArrayList<>();
    private volatile Supplier<List<Route>> routes;

    public void attach(Supplier<List<Route>> served) {
        routes = served;
    }

    /** The document the served routes make (the same for every test server). */
    public static JsonNode document(List<Route> routes) {
        if (document == null) {
            document = OpenApiDocument.of(routes, HearthServer.VERSION);
        }
        return document;
    }

    @Override
    public void observe(String method, String route, int status, long nanos) {
    }

    @Override
    public void answered(String method, String route, int status, byte[] json) {
        if (routes == null) {
            return;
        }
        String problem;
        try {
            problem = check(method, route, status, Json.mapper().readTree(json));
        } catch (IOException | RuntimeException e) {
            problem = "cannot check: " + e;
        }
        if (problem != null) {
            synchronized (violations) {
                violations.add(method + " " + route + " " + status + ": " + problem);
            }
        }
    }

    /** A request the server accepted must fit the document's schema of its body too. */
    @Override
    public void accepted(String method, String route, byte[] json) {
        if (routes == null) {
            return;
        }
        String problem;
        try {
            var doc = document(routes.get());
            var schemaNode = doc.path("paths").path(route).path(method.toLowerCase()).path("requestBody")
                    .path("content").path("application/json").path("schema");
            var body = Json.mapper().readTree(json);
            if (schemaNode.isMissingNode() && body.isObject() && body.isEmpty()) {
                problem = null; // routes without a body take {} as none
            } else if (schemaNode.isMissingNode()) {
                problem = "the document takes no JSON body here; the server accepted " + abbreviated(body);
            } else {
                var errors = SCHEMAS.computeIfAbsent(method + " " + route + " request", k -> schema(doc, schemaNode))
                        .validate(body);
                problem = errors.isEmpty() ? null : errors.stream().limit(3).map(Object::toString).toList() + " in "
                        + abbreviated(body);
            }
        } catch (IOException | RuntimeException e) {
            problem = "cannot check: " + e;
        }
        if (problem != null) {
            synchronized (violations) {
                violations.add(method + " " + route + " request: " + problem);
            }
        }
    }

    private String check(String method, String route, int status, JsonNode body) {
        var doc = document(routes.get());
        var schemaNode = route == null
                ? Json.mapper().createObjectNode().put("$ref", "#/components/schemas/Error")
                : resolved(doc, doc.path("paths").path(route).path(method.toLowerCase()).path("responses")
                        .path(Integer.toString(status))).path("content").path("application/json").path("schema");
        if (schemaNode.isMissingNode()) {
            return "the document has no JSON answer for this status; got " + abbreviated(body);
        }
        String key = method + " " + route + " " + status;
        var schema = SCHEMAS.computeIfAbsent(key, k -> schema(doc, schemaNode));
        var errors = schema.validate(body);
        return errors.isEmpty() ? null : errors.stream().limit(3).map(Object::toString).toList() + " in "
                + abbreviated(body);
    }

    /** A schema of the document (an answer's, a request body's), its {@code #/components/...} references resolvable. */
    public static Schema schema(JsonNode doc, JsonNode fragment) {
        return REGISTRY.getSchema(((ObjectNode) fragment.deepCopy()).set("components", doc.path("components")));
    }

    /** A {@code $ref} within the document followed. */
    private static JsonNode resolved(JsonNode doc, JsonNode node) {
        String ref = node.path("$ref").asText("");
        return ref.startsWith("#") ? doc.at(ref.substring(1)) : node;
    }

    private static String abbreviated(JsonNode body) {
        String text = body.toString();
        return text.length() > 400 ? text.substring(0, 400) + "…" : text;
    }

    /** Fails with what did not fit, if anything. */
    public void verify() {
        synchronized (violations) {
            if (!violations.isEmpty()) {
                var first = violations.stream().distinct().limit(8).toList();
                violations.clear();
                throw new AssertionError("answers that do not fit docs/openapi.json (" + first.size() + " shown):\n"
                        + String.join("\n", first));
            }
        }
    }
}
