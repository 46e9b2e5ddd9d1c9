package dev.hearth.queries;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Saved SQL queries of a workspace: kept by name, read by every member, changed by editors. */
@HearthServerTest
class SavedQueriesTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeAll
    void workspace() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    @Test
    void aQueryIsSavedListedRenamedAndDeleted() {
        var saved = admin.create("/workspaces/" + ws + "/queries",
                Map.of("name", "Orders today", "sql", "select count(*)\nfrom orders")).path("query");
        String id = saved.path("id").asText();
        assertEquals("select count(*)\nfrom orders", saved.path("sql").asText());
        assertEquals(ws, saved.path("workspace").asText());
        assertTrue(admin.get("/workspaces/" + ws + "/queries").path("queries").valueStream()
                .anyMatch(q -> q.path("id").asText().equals(id)));
        assertEquals("Orders today", admin.get("/queries/" + id).path("query").path("name").asText());

        var renamed = admin.patch("/queries/" + id, Map.of("name", "Orders")).path("query");
        assertEquals("Orders", renamed.path("name").asText());
        assertEquals("select count(*)\nfrom orders", renamed.path("sql").asText(), "a rename keeps the text");
        assertEquals("select 2", admin.patch("/queries/" + id, Map.of("sql", "select 2")).path("query").path("sql").asText());

        assertFalse(admin.delete("/queries/" + id).path("query").path("deleted_at").isNull());
        assertTrue(admin.get("/workspaces/" + ws + "/queries").path("queries").valueStream()
                .noneMatch(q -> q.path("id").asText().equals(id)), "a deleted query is not listed");
        admin.create("/workspaces/" + ws + "/queries", Map.of("name", "Orders", "sql", "select 3")); // its name is free
    }

    @Test
    void badInputIsRefusedByItsField() {
        admin.create("/workspaces/" + ws + "/queries", Map.of("name", "twice", "sql", "select 1"));
        assertError(admin.send("POST", "/workspaces/" + ws + "/queries", Map.of("name", "twice", "sql", "select 2"),
                Map.of("Idempotency-Key", "another")), 409, "conflict");
        refusedAt("name", Map.of("name", " ", "sql", "select 2"));
        refusedAt("sql", Map.of("name", "long", "sql", "x".repeat(100_001)));
        refusedAt("sql", Map.of("name", "none"));
        assertError(admin.send("GET", "/queries/00000000000000000000000000q", null, Map.of()), 404, "not_found");
    }

    private void refusedAt(String field, Map<String, String> body) {
        var r = admin.send("POST", "/workspaces/" + ws + "/queries", body, Map.of("Idempotency-Key", "k-" + field + body.size()));
        assertError(r, 400, "invalid_request");
        assertTrue(r.body().path("error").path("details").path("fields").has(field), r.body().toString());
    }

    @Test
    void aViewerReadsQueriesAndMayNotChangeThem() {
        String id = admin.create("/workspaces/" + ws + "/queries", Map.of("name", "shared", "sql", "select now()"))
                .path("query").path("id").asText();
        admin.create("/workspaces/" + ws + "/access", Map.of("email", "reader@example.com", "role", "viewer"));
        var viewer = server.emailUser("reader@example.com");
        assertEquals("select now()", viewer.get("/queries/" + id).path("query").path("sql").asText());
        assertError(viewer.send("PATCH", "/queries/" + id, Map.of("sql", "drop table x"), Map.of()), 403, "forbidden");
        assertError(viewer.send("POST", "/workspaces/" + ws + "/queries", Map.of("name", "mine", "sql", "select 1"),
                Map.of("Idempotency-Key", "mine")), 403, "forbidden");
        assertError(server.emailUser("stranger@example.com").send("GET", "/queries/" + id, null, Map.of()), 404, "not_found");
    }
}
