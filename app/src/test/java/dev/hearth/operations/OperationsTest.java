package dev.hearth.operations;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.support.ChildServer;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestKinds;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@HearthServerTest(config = "withOperations")
class OperationsTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;

    static UnaryOperator<Config> withOperations() {
        return c -> c.withOperations(Duration.ofSeconds(2), TestKinds.all());
    }

    @BeforeAll
    void start() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    private String begin(String kind, String input) throws Exception {
        return server.server().operations().begin(kind, ws, "thing", Json.mapper().readTree(input)).id();
    }

    private JsonNode get(String id, int wait) {
        return admin.get("/operations/" + id + "?wait=" + wait).path("operation");
    }

    @Test
    void anOperationRunsReportsProgressAndSucceeds() throws Exception {
        String id = begin("test.sleep", "{\"millis\": 600}");
        var running = get(id, 0);
        assertEquals("running", running.path("state").asText());
        assertEquals("test.sleep", running.path("kind").asText());
        assertEquals(ws, running.path("workspace").asText());
        assertEquals("thing", running.path("resource").asText());
        assertTrue(running.path("completed_at").isNull());
        var done = get(id, 30);
        assertEquals("succeeded", done.path("state").asText(), done.toString());
        assertEquals("step 12 of 12", done.path("progress").asText());
        assertTrue(done.path("error").isNull());
        assertTrue(!done.path("completed_at").isNull());
    }

    @Test
    void aFailureIsRecordedWithItsReason() throws Exception {
        var failed = get(begin("test.sleep", "{\"millis\": 100, \"fail\": true}"), 30);
        assertEquals("failed", failed.path("state").asText());
        assertEquals("test_failure", failed.path("error").path("code").asText());
        assertEquals("asked to fail", failed.path("error").path("message").asText());
    }

    @Test
    void onlyMembersOfTheWorkspaceSeeAnOperation() throws Exception {
        String id = begin("test.sleep", "{\"millis\": 100}");
        assertError(server.emailUser("stranger@example.com").send("GET", "/operations/" + id, null, Map.of()),
                404, "not_found");
        admin.create("/workspaces/" + ws + "/access", Map.of("email", "watcher@example.com", "role", "viewer"));
        assertEquals(200, server.emailUser("watcher@example.com").send("GET", "/operations/" + id, null, Map.of()).status());
        assertError(admin.send("GET", "/operations/00000000000000000000000000o", null, Map.of()), 404, "not_found");
        for (String wait : new String[] {"61", "-1", "soon"}) {
            assertError(admin.send("GET", "/operations/" + id + "?wait=" + wait, null, Map.of()), 400, "invalid_request");
        }
    }

    @Test
    void aWorkspaceListsItsOperationsNewestFirstByStateAndResource() throws Exception {
        String other = TestServer.workspace(admin).path("id").asText();
        String failed = get(begin("test.sleep", "{\"millis\": 10, \"fail\": true}"), 30).path("id").asText();
        String first = get(begin("test.sleep", "{\"millis\": 10}"), 30).path("id").asText();
        String second = get(begin("test.sleep", "{\"millis\": 10}"), 30).path("id").asText();
        server.server().operations().begin("test.sleep", other, "thing", Json.mapper().readTree("{\"millis\": 10}"));

        var page = admin.get("/workspaces/" + ws + "/operations?limit=2");
        assertEquals(List.of(second, first), ids(page.path("operations")));
        var next = admin.get("/workspaces/" + ws + "/operations?limit=2&cursor=" + page.path("next_cursor").asText());
        assertEquals(failed, ids(next.path("operations")).getFirst());
        var failures = admin.get("/workspaces/" + ws + "/operations?state=failed").path("operations");
        assertTrue(ids(failures).contains(failed));
        for (var op : failures) {
            assertEquals("failed", op.path("state").asText());
            assertEquals(ws, op.path("workspace").asText(), "another workspace's operation is not listed");
        }
        assertEquals(0, admin.get("/workspaces/" + ws + "/operations?resource=nothing").path("operations").size());
        assertError(admin.send("GET", "/workspaces/" + ws + "/operations?state=lost", null, Map.of()), 400, "invalid_request");
    }

    private static List<String> ids(JsonNode operations) {
        return operations.valueStream().map(op -> op.path("id").asText()).toList();
    }

    @Test
    void workLeftRunningByAStoppedServerIsFailedOrResumed() throws Exception {
        String lost = begin("test.sleep", "{\"millis\": 5000}");
        String resumed = begin("test.resumable", "{\"millis\": 500}");
        server.restart();
        admin = server.admin();
        var failed = get(lost, 0);
        assertEquals("failed", failed.path("state").asText(), failed.toString());
        assertEquals("interrupted", failed.path("error").path("code").asText());
        assertEquals("succeeded", get(resumed, 30).path("state").asText());
    }

    @Test
    void workLeftByAKilledServerIsRecovered(@TempDir Path dataDir) throws Exception {
        for (String kind : List.of("test.sleep", "test.resumable")) {
            Path dir = Files.createDirectories(dataDir.resolve(kind));
            int port = ChildServer.freePort();
            String id = ChildServer.startAndKill(dir, port, kind);
            try (var restarted = TestServer.startOn(dir, port, withOperations())) {
                var op = restarted.admin().get("/operations/" + id + "?wait=30").path("operation");
                if (kind.equals("test.sleep")) {
                    assertEquals("failed", op.path("state").asText(), op.toString());
                    assertEquals("interrupted", op.path("error").path("code").asText());
                } else {
                    assertEquals("succeeded", op.path("state").asText(), op.toString());
                }
            }
        }
    }
}
