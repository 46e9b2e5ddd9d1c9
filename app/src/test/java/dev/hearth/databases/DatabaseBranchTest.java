package dev.hearth.databases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A branch gets its new password at its first start, before anyone may log in over TCP: one that
 * has never started can still have its credentials reset and be checkpointed and branched again, and
 * each of them answers only to its own newest password.
 */
@HearthServerTest(databases = true)
class DatabaseBranchTest {
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeAll
    void start() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    @Test
    void aBranchThatNeverStartedTakesAResetAndIsBranchedAgain() throws Exception {
        String source = create(Map.of("name", "origin")).path("id").asText();
        var sc = connection(source);
        DatabasesTest.execute(DatabasesTest.jdbc(sc, sc.path("password").asText()),
                "CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)");
        checkpoint(source, "first");

        String branch = create(Map.of("name", "unstarted", "from_checkpoint", "origin/first")).path("id").asText();
        String before = connection(branch).path("password").asText();
        var reset = admin.post("/databases/" + branch + "/reset_credentials", null).path("connection");
        assertEquals("sleeping", admin.get("/databases/" + branch).path("database").path("state").asText());
        checkpoint(branch, "never-started");
        String again = create(Map.of("name", "again", "from_checkpoint", "unstarted/never-started"))
                .path("id").asText();

        var ac = connection(again);
        assertEquals("7", DatabasesTest.query(DatabasesTest.jdbc(ac, ac.path("password").asText()),
                "SELECT n FROM kept"));
        refused(ac, reset.path("password").asText());
        assertEquals("7", DatabasesTest.query(DatabasesTest.jdbc(reset, reset.path("password").asText()),
                "SELECT n FROM kept"));
        refused(reset, before);
        refused(reset, sc.path("password").asText());
    }

    private static void refused(JsonNode connection, String password) {
        var e = assertThrows(SQLException.class, () -> DatabasesTest.jdbc(connection, password).close());
        assertTrue(e.getMessage().contains("authentication failed"), e::getMessage);
    }

    private JsonNode create(Map<String, Object> body) {
        var r = admin.send("POST", "/workspaces/" + ws + "/databases", body,
                Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertEquals(201, r.status(), () -> r.body().toString());
        return r.body().path("database");
    }

    private JsonNode connection(String db) {
        return admin.get("/databases/" + db + "/connection").path("connection");
    }

    private void checkpoint(String db, String name) {
        var made = admin.create("/databases/" + db + "/checkpoints", Map.of("name", name));
        var op = admin.get("/operations/" + made.path("operations").get(0).asText() + "?wait=60").path("operation");
        assertEquals("succeeded", op.path("state").asText(), op::toString);
    }
}
