package dev.hearth.variables;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import dev.hearth.cli.Cli;
import dev.hearth.client.HearthClient;
import dev.hearth.server.variables.VariableService;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@HearthServerTest
class VariablesTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private HearthClient editor;
    private HearthClient viewer;
    private String ws;

    @BeforeAll
    void start() {
        editor = server.emailUser("var-editor@example.com");
        viewer = server.emailUser("var-viewer@example.com");
    }

    @BeforeEach
    void workspace() {
        ws = TestServer.workspace(admin).path("id").asText();
        admin.create("/workspaces/" + ws + "/access", Map.of("email", "var-editor@example.com", "role", "editor"));
        admin.create("/workspaces/" + ws + "/access", Map.of("email", "var-viewer@example.com", "role", "viewer"));
    }

    private JsonNode set(HearthClient client, String name, String value) {
        return client.create("/workspaces/" + ws + "/variables", Map.of("name", name, "value", value)).path("variable");
    }

    @Test
    void editorsSeeValuesAndViewersDoNot() {
        var created = set(editor, "api-key", "s3cret-value");
        String editorId = editor.get("/me").path("principal").path("id").asText();
        assertEquals("s3cret-value", created.path("value").asText());
        assertEquals(editorId, created.path("created_by").asText());
        assertEquals(editorId, created.path("updated_by").asText());
        assertEquals(ws, created.path("workspace").asText());
        String id = created.path("id").asText();

        var seenByViewer = viewer.get("/variables/" + id).path("variable");
        assertFalse(seenByViewer.has("value"), seenByViewer.toString());
        assertEquals("api-key", seenByViewer.path("name").asText());
        viewer.get("/workspaces/" + ws + "/variables").path("variables")
                .forEach(v -> assertFalse(v.has("value")));
        assertEquals("s3cret-value", admin.get("/variables/api-key?workspace=" + ws).path("variable").path("value").asText());
        assertError(viewer.send("PATCH", "/variables/" + id, Map.of("value", "x"), Map.of()), 403, "forbidden");
    }

    @Test
    void updatesRecordWhoChangedIt() {
        String id = set(editor, "rotating", "one").path("id").asText();
        var updated = admin.patch("/variables/" + id, Map.of("value", "two")).path("variable");
        assertEquals("two", updated.path("value").asText());
        assertEquals(admin.get("/me").path("principal").path("id").asText(), updated.path("updated_by").asText());
        assertNotEquals(updated.path("created_by"), updated.path("updated_by"));
        var renamed = editor.patch("/variables/" + id, Map.of("name", "renamed")).path("variable");
        assertEquals("renamed", renamed.path("name").asText());
        assertEquals("two", renamed.path("value").asText());
    }

    @Test
    void deleteIsSoftAndFreesTheName() {
        String id = set(editor, "short-lived", "v1").path("id").asText();
        var deleted = editor.delete("/variables/" + id).path("variable");
        assertFalse(deleted.path("deleted_at").isNull());
        assertTrue(admin.get("/workspaces/" + ws + "/variables").path("variables").isEmpty());
        assertEquals(1, admin.get("/workspaces/" + ws + "/variables?deleted=true").path("variables").size());
        assertFalse(admin.get("/variables/" + id).path("variable").path("deleted_at").isNull());
        assertError(admin.send("GET", "/variables/short-lived?workspace=" + ws, null, Map.of()), 404, "not_found");
        assertError(admin.send("PATCH", "/variables/" + id, Map.of("value", "x"), Map.of()), 409, "conflict");

        var again = set(editor, "short-lived", "v2");
        assertNotEquals(id, again.path("id").asText());
        assertEquals("v2", admin.get("/variables/short-lived?workspace=" + ws).path("variable").path("value").asText());
    }

    @Test
    void missingNamesAreOneLookup() {
        set(editor, "present", "here");
        String doomed = set(editor, "doomed", "gone soon").path("id").asText();
        editor.delete("/variables/" + doomed);
        var service = server.server().variables();
        assertEquals(Set.of("doomed", "never"), service.missing(ws, List.of("present", "doomed", "never")));
        assertEquals(Set.of(), service.missing(ws, List.of()));
        assertEquals("here", service.valueOf(ws, "present").orElseThrow());
    }

    @Test
    void aReplayNeverRepeatsTheValue() {
        var body = Map.of("name", "replayed", "value", "only-once");
        var headers = Map.of("Idempotency-Key", UUID.randomUUID().toString());
        var first = editor.send("POST", "/workspaces/" + ws + "/variables", body, headers);
        var replay = editor.send("POST", "/workspaces/" + ws + "/variables", body, headers);
        assertEquals("only-once", first.body().path("variable").path("value").asText());
        assertEquals(201, replay.status());
        assertEquals(first.body().path("variable").path("id"), replay.body().path("variable").path("id"));
        assertFalse(replay.body().path("variable").has("value"));
    }

    @Test
    void namesAreUniqueAmongLiveVariables() {
        set(editor, "taken", "1");
        var second = editor.send("POST", "/workspaces/" + ws + "/variables", Map.of("name", "taken", "value", "2"),
                Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertError(second, 409, "conflict");
    }

    @Test
    void badInputIsNamed() {
        String big = "x".repeat(VariableService.MAX_VALUE_BYTES + 1);
        for (var body : List.<Map<String, Object>>of(Map.of("name", "Bad_Name", "value", "v"), Map.of("name", "ok"),
                Map.of("name", "ok", "value", 5), Map.of("name", "ok", "value", big),
                Map.of("name", "ok", "value", "é".repeat(VariableService.MAX_VALUE_BYTES / 2 + 1)))) {
            var r = editor.send("POST", "/workspaces/" + ws + "/variables", body,
                    Map.of("Idempotency-Key", UUID.randomUUID().toString()));
            assertError(r, 400, "invalid_request");
        }
        assertEquals(201, editor.send("POST", "/workspaces/" + ws + "/variables",
                Map.of("name", "exactly-max", "value", "x".repeat(VariableService.MAX_VALUE_BYTES)),
                Map.of("Idempotency-Key", UUID.randomUUID().toString())).status());
        assertError(admin.send("GET", "/variables/by-name-only", null, Map.of()), 400, "invalid_request");
        assertError(admin.send("GET", "/workspaces/" + ws + "/variables?deleted=maybe", null, Map.of()), 400,
                "invalid_request");
        assertError(admin.send("PATCH", "/variables/exactly-max?workspace=" + ws, Map.of(), Map.of()), 400,
                "invalid_request");
    }

    @Test
    void otherWorkspacesCannotSeeThem() {
        String id = set(editor, "private", "mine").path("id").asText();
        var stranger = server.emailUser("var-stranger@example.com");
        assertError(stranger.send("GET", "/variables/" + id, null, Map.of()), 404, "not_found");
        assertError(stranger.send("GET", "/variables/private?workspace=" + ws, null, Map.of()), 404, "not_found");
        String theirs = TestServer.workspace(stranger).path("id").asText();
        assertError(stranger.send("GET", "/variables/" + id + "?workspace=" + theirs, null, Map.of()), 404, "not_found");
        assertError(stranger.send("DELETE", "/variables/" + id, null, Map.of()), 404, "not_found");
    }

    @Test
    void aWorkspaceHoldingVariablesCannotBeDeleted() {
        String id = set(editor, "holder", "v").path("id").asText();
        var refused = admin.send("DELETE", "/workspaces/" + ws, null, Map.of());
        assertError(refused, 409, "not_empty");
        assertEquals(1, refused.body().path("error").path("details").path("variables").asInt());
        editor.delete("/variables/" + id);
        assertEquals(200, admin.send("DELETE", "/workspaces/" + ws, null, Map.of()).status());
    }

    @Test
    void rotatingTheEncryptionKeyKeepsEveryValue() throws Exception {
        String id = set(editor, "survives-rotation", "still readable").path("id").asText();
        var keyFile = server.dataDir.resolve("encryption-keys.json");
        String before = Json.mapper().readTree(keyFile.toFile()).path("active").asText();
        var out = new ByteArrayOutputStream();
        int code = Cli.run(new String[] {"admin", "rotate-encryption-key", "--data-dir",
                server.dataDir.toString()}, new Cli.Context(Map.of(), System.in,
                new PrintStream(out, true), System.err, server.dataDir.resolve("cli")));
        assertEquals(0, code);
        var keys = Json.mapper().readTree(keyFile.toFile());
        String first = keys.path("active").asText();
        assertNotEquals(before, first);
        assertTrue(keys.path("keys").has(before), "the key active before stays a rotation longer (another node may still seal with it)");
        assertEquals(0, Cli.run(new String[] {"admin", "rotate-encryption-key", "--data-dir", server.dataDir.toString()},
                new Cli.Context(Map.of(), System.in, new PrintStream(out, true), System.err, server.dataDir.resolve("cli"))));
        keys = Json.mapper().readTree(keyFile.toFile());
        assertFalse(keys.path("keys").has(before), "the old key is dropped once nothing uses it: " + out);
        assertTrue(keys.path("keys").has(first));
        assertEquals("still readable", admin.get("/variables/" + id).path("variable").path("value").asText());
        assertEquals("new", set(editor, "after-rotation", "new").path("value").asText());
    }
}
