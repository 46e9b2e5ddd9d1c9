package dev.hearth.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.bench.ProbeCases.Auth;
import dev.hearth.bench.ProbeCases.Probe;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Requests made from the served OpenAPI document, one operation at a time: a valid one (the
 * operation's example or a body made from its schema, real ids), then each declared field of the
 * wrong type, missing when required, and oversized, malformed bodies, each path parameter as a dot
 * or encoded segment, and header cases (key missing, too long or doubled, any case of a header's
 * name and of its Bearer scheme, no or another's token). The document, not the code, says what an
 * operation takes, so the fuzz checks the document as much as the server.
 */
final class OpenApiCases {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    static final List<String> DOT_SEGMENTS = List.of("..", ".", "%2e%2e", "%2E.", ".%2E", "%2e", "%2F", "a%2Fb",
            "%00", "%zz", "");
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final JsonNode doc;
    private final List<Probe> probes = new ArrayList<>();

    private OpenApiCases(JsonNode doc) {
        this.doc = doc;
    }

    /**
     * Every case of every operation with path parameters from {@code ids} (a made-up id where it has
     * none); destructive operations (DELETE) come last so that the others meet the fixture whole.
     * {@code full} false: the short form (no oversized or doubled cases, fewer segments).
     */
    static List<Probe> all(JsonNode doc, Map<String, String> ids, boolean full) {
        var cases = new OpenApiCases(doc);
        var operations = new ArrayList<String[]>();
        doc.path("paths").properties().forEach(path -> path.getValue().properties().forEach(op -> {
            if (!op.getKey().equals("parameters")) {
                operations.add(new String[] {path.getKey(), op.getKey().toUpperCase(Locale.ROOT)});
            }
        }));
        operations.sort(Comparator.comparing((String[] o) -> o[1].equals("DELETE"))
                .thenComparing(o -> o[0].equals("/workspaces/{ws}")));
        for (var o : operations) {
            cases.operation(o[0], o[1], doc.path("paths").path(o[0]).path(o[1].toLowerCase(Locale.ROOT)), ids, full);
        }
        return cases.probes;
    }

    private void operation(String template, String method, JsonNode op, Map<String, String> ids, boolean full) {
        var filled = new java.util.HashMap<String, String>();
        ProbeCases.params(template).forEach(p -> filled.put(p, ids.getOrDefault(p, ProbeBench.MADE_UP)));
        String path = "/v1" + ProbeCases.fill(template, filled);
        boolean keyed = op.path("parameters").findValuesAsText("name").contains("Idempotency-Key");
        var schema = requestSchema(op);
        ObjectNode valid = schema == null ? null : validBody(op, schema);
        var sender = new Sender(template, method, path, keyed);
        sender.add("valid", Auth.ADMIN, List.of(), valid);
        if (schema != null) {
            wrongTypes(sender, schema, valid, full);
            malformed(sender, full);
        }
        segments(sender, template, filled, valid, full);
        headers(sender, valid, full);
    }

    /** The JSON request body's schema, resolved; null when the operation takes none (or takes bytes). */
    private JsonNode requestSchema(JsonNode op) {
        var json = op.path("requestBody").path("content").path("application/json");
        return json.isMissingNode() ? null : resolve(json.path("schema"));
    }

    private JsonNode resolve(JsonNode schema) {
        if (schema.has("$ref")) {
            return resolve(doc.at(schema.path("$ref").asText().substring(1)));
        }
        if (schema.has("anyOf")) {
            for (var choice : schema.path("anyOf")) {
                if (!"null".equals(choice.path("type").asText())) {
                    return resolve(choice);
                }
            }
        }
        return schema;
    }

    /**
     * The operation's example with a fresh name (a valid create should make something new) and the
     * built-in image, or one made from the schema.
     */
    private ObjectNode validBody(JsonNode op, JsonNode schema) {
        var example = op.path("requestBody").path("content").path("application/json").path("example");
        ObjectNode body = example.isObject() ? example.deepCopy() : NODES.objectNode();
        if (!example.isObject()) {
            for (var required : schema.path("required")) {
                body.set(required.asText(), value(required.asText(), resolve(schema.path("properties").path(required.asText()))));
            }
        }
        if (body.has("name")) {
            body.put("name", "fz-" + NAMES.incrementAndGet());
        }
        // Only the built-in image: a test or a bench never reaches a registry beyond loopback.
        for (String reference : List.of("image", "reference")) {
            if (body.has(reference)) {
                body.put(reference, "hearth/busybox");
            }
        }
        return body;
    }

    private JsonNode value(String field, JsonNode schema) {
        if (schema.has("enum")) {
            return schema.path("enum").get(0);
        }
        return switch (schema.path("type").asText()) {
            case "integer", "number" -> NODES.numberNode(schema.path("minimum").asLong(1));
            case "boolean" -> NODES.booleanNode(false);
            case "array" -> NODES.arrayNode();
            case "object" -> NODES.objectNode();
            default -> NODES.textNode(switch (field) {
                case "email" -> "fz" + NAMES.incrementAndGet() + "@example.com";
                case "role" -> "viewer";
                case "image", "reference" -> "hearth/busybox";
                case "path", "from", "to", "cwd" -> "/tmp/fz" + NAMES.incrementAndGet();
                case "signal" -> "TERM";
                default -> "fz-" + NAMES.incrementAndGet();
            });
        };
    }

    /** A value no field of this schema's type accepts (null for a field that may not be null). */
    private static List<JsonNode> wrong(JsonNode schema) {
        return switch (schema.path("type").asText()) {
            case "string" -> List.of(NODES.numberNode(12345), NODES.booleanNode(true), NODES.arrayNode());
            case "integer" -> List.of(NODES.textNode("x"), NODES.numberNode(1.5), NODES.numberNode(1e30));
            case "number" -> List.of(NODES.textNode("x"), NODES.booleanNode(true));
            case "boolean" -> List.of(NODES.textNode("yes"), NODES.numberNode(1));
            case "array" -> List.of(NODES.objectNode(), NODES.textNode("x"), NODES.arrayNode().addNull());
            case "object" -> List.of(NODES.arrayNode().add(1), NODES.textNode("x"));
            default -> List.of(); // untyped in the document: anything passes the schema
        };
    }

    private void wrongTypes(Sender sender, JsonNode schema, ObjectNode valid, boolean full) {
        schema.path("properties").properties().forEach(field -> {
            var type = resolve(field.getValue());
            for (var bad : wrong(type)) {
                sender.add("field " + field.getKey() + " = " + bad, Auth.ADMIN, List.of(), with(valid, field.getKey(), bad));
            }
            if (full && type.path("type").asText().equals("string")) {
                sender.add("field " + field.getKey() + " of 300 KB", Auth.ADMIN, List.of(),
                        with(valid, field.getKey(), NODES.textNode("x".repeat(300_000))));
            }
            if (type.path("type").asText().equals("object")) {
                type.path("properties").properties().forEach(inner -> {
                    for (var bad : wrong(resolve(inner.getValue()))) {
                        var nested = NODES.objectNode().set(inner.getKey(), bad);
                        sender.add("field " + field.getKey() + "." + inner.getKey() + " = " + bad, Auth.ADMIN, List.of(),
                                with(valid, field.getKey(), nested));
                    }
                });
            }
        });
        for (var required : schema.path("required")) {
            var without = valid.deepCopy();
            without.remove(required.asText());
            sender.add("without " + required.asText(), Auth.ADMIN, List.of(), without);
        }
    }

    private void malformed(Sender sender, boolean full) {
        for (String raw : List.of("{\"", "[", "{} {}", "{\"a\": }", "", "null", "[]")) {
            sender.raw("malformed " + ProbeCases.abbreviate(raw), List.of("Content-Type: application/json"),
                    raw.getBytes(StandardCharsets.UTF_8));
        }
        sender.raw("invalid UTF-8", List.of("Content-Type: application/json"), new byte[] {'{', '"', (byte) 0xff, '"', '}'});
        if (full) {
            sender.raw("body over 1 MiB", List.of("Content-Type: application/json"),
                    ("{\"name\": \"" + "x".repeat(2 << 20) + "\"}").getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Each path parameter as a dot or encoded segment, the others real; and dot segments after the path. */
    private void segments(Sender sender, String template, Map<String, String> ids, ObjectNode valid, boolean full) {
        for (String param : ProbeCases.params(template)) {
            for (String bad : full ? DOT_SEGMENTS : DOT_SEGMENTS.subList(0, 4)) {
                var changed = new java.util.HashMap<>(ids);
                changed.put(param, bad);
                sender.at("/v1" + ProbeCases.fill(template, changed), "{" + param + "} = " + bad, valid);
            }
        }
        String path = "/v1" + ProbeCases.fill(template, ids);
        for (String tail : full ? List.of("/..", "/.", "/%2e%2e", "/../x", "//") : List.of("/..", "/%2e%2e")) {
            sender.at(path + tail, "path + " + tail, valid);
        }
    }

    private void headers(Sender sender, ObjectNode valid, boolean full) {
        sender.add("no token", Auth.NONE, List.of(), valid);
        sender.add("viewer's token", Auth.VIEWER, List.of(), valid);
        sender.add("lower-case names and scheme", Auth.NONE, List.of("authorization: bearer " + Sender.ADMIN_TOKEN,
                "content-type: application/json"), valid);
        sender.add("upper-case names", Auth.NONE, List.of("AUTHORIZATION: Bearer " + Sender.ADMIN_TOKEN,
                "CONTENT-TYPE: application/json"), valid);
        if (sender.keyed) {
            sender.unkeyed("without Idempotency-Key", List.of("Content-Type: application/json"), valid);
            sender.unkeyed("Idempotency-Key of 256", List.of("Content-Type: application/json",
                    "Idempotency-Key: " + "k".repeat(256)), valid);
        }
        if (full) {
            sender.add("two Idempotency-Keys", Auth.ADMIN, List.of("Idempotency-Key: a", "Idempotency-Key: b"), valid);
            sender.add("Content-Type text/plain", Auth.ADMIN, List.of("Content-Type: text/plain"), valid);
        }
    }

    private static ObjectNode with(ObjectNode body, String field, JsonNode value) {
        var copy = body == null ? NODES.objectNode() : body.deepCopy();
        copy.set(field, value);
        return copy;
    }

    /** Builds the probes of one operation. */
    private final class Sender {
        /** Replaced by the admin's token when sent (see ProbeBench.send). */
        static final String ADMIN_TOKEN = "{admin-token}";
        private final String template;
        private final String method;
        private final String path;
        private final boolean keyed;

        Sender(String template, String method, String path, boolean keyed) {
            this.template = template;
            this.method = method;
            this.path = path;
            this.keyed = keyed;
        }

        void add(String kase, Auth auth, List<String> headers, ObjectNode body) {
            probe(kase, path, auth, key(headers), body);
        }

        void at(String target, String kase, ObjectNode body) {
            probe(kase, target, Auth.ADMIN, key(List.of()), body);
        }

        void unkeyed(String kase, List<String> headers, ObjectNode body) {
            probes.add(new Probe(kase, method, template, path, Auth.ADMIN, headers,
                    body == null ? null : body.toString().getBytes(StandardCharsets.UTF_8)));
        }

        void raw(String kase, List<String> headers, byte[] body) {
            probes.add(new Probe(kase, method, template, path, Auth.ADMIN, key(headers), body));
        }

        private void probe(String kase, String target, Auth auth, List<String> headers, ObjectNode body) {
            var all = new ArrayList<>(headers);
            boolean typed = all.stream().anyMatch(h -> h.toLowerCase(Locale.ROOT).startsWith("content-type:"));
            if (body != null && !typed) {
                all.add("Content-Type: application/json");
            }
            probes.add(new Probe(kase, method, template, target, auth, all,
                    body == null ? null : body.toString().getBytes(StandardCharsets.UTF_8)));
        }

        private List<String> key(List<String> headers) {
            if (!keyed || headers.stream().anyMatch(h -> h.toLowerCase(Locale.ROOT).startsWith("idempotency-key:"))) {
                return headers;
            }
            var all = new ArrayList<>(headers);
            all.add("Idempotency-Key: fz-" + UUID.randomUUID());
            return all;
        }
    }
}
