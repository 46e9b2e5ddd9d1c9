package dev.hearth.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.server.Config;
import dev.hearth.server.http.Route;
import dev.hearth.server.http.Scope;
import dev.hearth.support.HearthServerExtension;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.Repository;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestKinds;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** docs/api.md is checked against the server: routes and roles, object fields and types, error codes. */
@HearthServerTest(config = "withOperations")
class ApiReferenceTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private List<String> doc;

    static UnaryOperator<Config> withOperations() {
        return c -> c.withOperations(Duration.ofSeconds(2), TestKinds.all());
    }

    @BeforeAll
    void readDoc() throws Exception {
        doc = Files.readAllLines(Repository.root().resolve("docs/api.md"));
    }

    /** The rows of the first table after a heading line, as cell lists (header row dropped). */
    private List<List<String>> table(String heading) {
        int at = doc.indexOf(heading);
        assertTrue(at >= 0, "docs/api.md has no section " + heading);
        var rows = new ArrayList<List<String>>();
        int i = at + 1;
        while (i < doc.size() && !doc.get(i).startsWith("|")) {
            i++;
        }
        for (i += 2; i < doc.size() && doc.get(i).startsWith("|"); i++) {
            var cells = List.of(doc.get(i).substring(1, doc.get(i).length() - 1).split("\\|"));
            rows.add(cells.stream().map(String::strip).toList());
        }
        return rows;
    }

    private static String who(Route route) {
        return switch (route.scope()) {
            case Scope.Public p -> "anyone";
            case Scope.SignedIn s -> "signed-in";
            case Scope.Operator o -> "operator";
            case Scope.InWorkspace w -> w.action().minimum().wire();
            case Scope.OfResource r -> r.action().minimum().wire();
        };
    }

    @Test
    void everyRouteIsDocumentedWithWhoMayCallIt() {
        var served = new TreeMap<String, String>();
        server.server().routes().routes().forEach(r -> served.put(r.method() + " " + r.template(), who(r)));
        var documented = new TreeMap<String, String>();
        table("## Routes").forEach(row -> documented.put(row.get(0) + " " + row.get(1), row.get(2)));
        assertEquals(served, documented);
    }

    @Test
    void everyErrorCodeIsDocumentedWithItsStatus() {
        var codes = new TreeMap<String, Integer>();
        for (var c : ErrorCode.values()) {
            codes.put(c.code(), c.status());
        }
        var documented = new TreeMap<String, Integer>();
        table("## Error codes").forEach(row -> documented.put(row.get(0), Integer.parseInt(row.get(1))));
        assertEquals(codes, documented);
    }

    @Test
    void responsesMatchTheObjectTables() {
        String ws = TestServer.workspace(admin).path("id").asText();
        var created = admin.create("/workspaces", Map.of("name", TestServer.uniqueName("doc")));
        assertEquals(new TreeSet<>(List.of("workspace", "operations")), names(created));
        conforms("Workspace", created.path("workspace"));
        conforms("Workspace", admin.delete("/workspaces/" + created.path("workspace").path("id").asText()).path("workspace"));

        var person = admin.create("/workspaces/" + ws + "/access", Map.of("email", "doc@example.com", "role", "viewer"));
        conforms("Access", person.path("access"));
        conforms("Principal", person.path("access").path("principal"));
        var robot = admin.create("/workspaces/" + ws + "/access", Map.of("name", "doc-robot", "role", "editor"));
        assertEquals(new TreeSet<>(List.of("access", "key", "key_file", "operations")), names(robot));
        conforms("Access", robot.path("access"));
        conforms("Principal", robot.path("access").path("principal"));
        conforms("Key", robot.path("key"));
        conforms("Key", robot.path("access").path("key"));
        conforms("Key file", robot.path("key_file"));

        var apiKey = admin.create("/workspaces/" + ws + "/api_keys", Map.of("name", "doc-key"));
        assertEquals(new TreeSet<>(List.of("api_key", "secret", "operations")), names(apiKey));
        conforms("API key", apiKey.path("api_key"));
        conforms("API key", admin.delete("/workspaces/" + ws + "/api_keys/" + apiKey.path("api_key").path("id").asText())
                .path("api_key"));

        conforms("Me", admin.get("/me"));
        admin.get("/me").path("workspaces").forEach(m -> conforms("Workspace", m.path("workspace")));
        conforms("Session tokens", server.emailLogin("doc@example.com"));
        var token = server.anonymous().post("/auth/token", Map.of("grant_type",
                "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion",
                new KeyFileTokens(robot.path("key_file")).assertion()));
        conforms("Token response", token);
        conforms("Error", admin.send("GET", "/nope", null, Map.of()).body().path("error"));

        var variable = admin.create("/workspaces/" + ws + "/variables", Map.of("name", "doc-var", "value", "v"));
        conforms("Variable", variable.path("variable"));
        conforms("Variable", admin.delete("/variables/" + variable.path("variable").path("id").asText()).path("variable"));
        var invitation = admin.create("/workspaces/" + ws + "/invitations", Map.of("email", "inv@example.com", "role", "viewer"));
        conforms("Invitation", invitation.path("invitation"));
        var invitee = server.withToken(server.emailLogin("inv@example.com").path("access_token").asText());
        conforms("Invitation", invitee.post("/invitations/" + invitation.path("invitation").path("id").asText() + "/accept",
                Map.of()).path("invitation"));
        String op = server.server().operations().begin("test.sleep", ws, "thing",
                Json.mapper().createObjectNode().put("millis", 50)).id();
        conforms("Operation", admin.get("/operations/" + op).path("operation"));
        conforms("Operation", admin.get("/operations/" + op + "?wait=30").path("operation"));
        String failing = server.server().operations().begin("test.sleep", ws, null,
                Json.mapper().createObjectNode().put("millis", 50).put("fail", true)).id();
        conforms("Operation", admin.get("/operations/" + failing + "?wait=30").path("operation"));

        if (HearthServerExtension.databasesUnavailable().isEmpty()) {
            var db = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "doc-db")).path("database");
            conforms("Database", db);
            String path = "/databases/" + db.path("id").asText();
            conforms("Connection", admin.get(path + "/connection").path("connection"));
            conforms("Database metrics", admin.get(path + "/metrics").path("metrics"));
            conforms("Connection", admin.post(path + "/reset_credentials", null).path("connection"));
            conforms("Database", admin.post(path + "/wake", Map.of()).path("database"));
            var role = admin.create(path + "/roles", Map.of("name", "doc_role"));
            conforms("Database role", role.path("role"));
            conforms("Connection", role.path("connection"));
            conforms("Database role", admin.get(path + "/roles").path("roles").get(0));
            conforms("PostgreSQL database", admin.create(path + "/pg_databases", Map.of("name", "doc_db"))
                    .path("pg_database"));
            conforms("PostgreSQL database", admin.get(path + "/pg_databases").path("pg_databases").get(0));
            var checkpoint = admin.create(path + "/checkpoints", Map.of());
            conforms("Checkpoint", checkpoint.path("checkpoint"));
            admin.get("/operations/" + checkpoint.path("operations").get(0).asText() + "?wait=30");
            conforms("Checkpoint", admin.get(path + "/checkpoints").path("checkpoints").get(0));
            conforms("Database", admin.delete(path).path("database"));
        }

        if (HearthServerExtension.computersUnavailable().isEmpty()) {
            var computer = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "doc-box", "image", "hearth/busybox",
                    "env", Map.of("A", "1"), "ports", List.of(Map.of("target", 8080)))).path("computer");
            conforms("Computer", computer);
            conforms("Exec result", admin.post("/computers/" + computer.path("id").asText() + "/exec",
                    Map.of("command", List.of("true"))));
            conforms("Process", admin.post("/computers/" + computer.path("id").asText() + "/processes",
                    Map.of("command", List.of("true"))).path("process"));
            conforms("Computer metrics", admin.get("/computers/" + computer.path("id").asText() + "/metrics").path("metrics"));
            conforms("File", admin.get("/computers/" + computer.path("id").asText() + "/files/info?path=/bin")
                    .path("file"));
            var checkpoint = admin.create("/computers/" + computer.path("id").asText() + "/checkpoints", Map.of());
            conforms("Checkpoint", checkpoint.path("checkpoint"));
            admin.get("/operations/" + checkpoint.path("operations").get(0).asText() + "?wait=30");
            conforms("Checkpoint", admin.get("/computers/" + computer.path("id").asText() + "/checkpoints")
                    .path("checkpoints").get(0));
            conforms("Computer", admin.delete("/computers/" + computer.path("id").asText()).path("computer"));
            var image = admin.create("/workspaces/" + ws + "/images", Map.of("reference", TestImages.MISSING_LAYOUT + ":x"));
            conforms("Image", image.path("image"));
            admin.get("/operations/" + image.path("operations").get(0).asText() + "?wait=30");
            conforms("Image", admin.get("/workspaces/" + ws + "/images").path("images").get(0));
        }
    }

    private void conforms(String object, JsonNode value) {
        var fields = new LinkedHashMap<String, String>();
        table("### " + object).forEach(row -> fields.put(row.get(0), row.get(1)));
        var mayBeAbsent = new TreeSet<String>();
        table("### " + object).stream().filter(row -> row.get(2).contains("absent")).forEach(row -> mayBeAbsent.add(row.get(0)));
        var present = names(value);
        present.addAll(mayBeAbsent);
        assertEquals(new TreeSet<>(fields.keySet()), present, object + " fields");
        fields.forEach((field, type) -> {
            JsonNode v = value.get(field);
            String where = object + "." + field + " (" + type + "): " + v;
            if (v == null) {
                assertTrue(mayBeAbsent.contains(field), where);
                return;
            }
            if (v.isNull()) {
                assertTrue(type.contains("null-able"), where);
                return;
            }
            switch (type.split(",")[0]) {
                case "string" -> assertTrue(v.isTextual(), where);
                case "timestamp" -> assertTrue(v.isTextual() && Instant.parse(v.asText()) != null, where);
                case "integer" -> assertTrue(v.isIntegralNumber(), where);
                case "number" -> assertTrue(v.isNumber(), where);
                case "boolean" -> assertTrue(v.isBoolean(), where);
                case "object" -> assertTrue(v.isObject(), where);
                case "array" -> assertTrue(v.isArray(), where);
                default -> throw new AssertionError("unknown type in docs: " + where);
            }
        });
    }

    private static TreeSet<String> names(JsonNode node) {
        var names = new TreeSet<String>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
