package dev.hearth.databases;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reading a database's past without restoring it: a time travel is a read-only connection to the
 * database as it was at a moment, on a cluster of its own that goes when it is ended, when it
 * expires, or with its database.
 */
@HearthServerTest(databases = true)
class DatabaseTimeTravelTest {
    private static final String ENTRIES = "SELECT string_agg(n::text, ',' ORDER BY n) FROM entries";
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeAll
    void start() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    @Test
    void aTimeTravelReadsThePastReadOnlyWhileTheDatabaseSleeps() throws Exception {
        String id = create("diary");
        var c = connection(id);
        Instant afterOne;
        try (var session = DatabasesTest.jdbc(c, c.path("password").asText())) {
            session.createStatement().execute("CREATE TABLE entries (n int)");
            session.createStatement().execute("INSERT INTO entries VALUES (1)");
            afterOne = pause();
            session.createStatement().execute("INSERT INTO entries VALUES (2)");
        }
        // The owner's password changes after the moment, and the database sleeps: neither matters.
        String password = admin.post("/databases/" + id + "/reset_credentials", Map.of()).path("connection")
                .path("password").asText();
        admin.post("/databases/" + id + "/sleep", Map.of());

        var trip = open(id, Map.of("at", afterOne.toString(), "ttl_seconds", 120));
        assertEquals(id, trip.path("database").asText());
        assertEquals(afterOne.toString(), trip.path("at").asText());
        long ttl = Instant.parse(trip.path("expires_at").asText()).getEpochSecond()
                - Instant.parse(trip.path("created_at").asText()).getEpochSecond();
        assertEquals(120, ttl, trip::toString);
        var at = trip.path("connection");
        assertEquals(password, at.path("password").asText(), "the owner logs in with the password it has now");
        assertTrue(at.path("uri").asText().startsWith("postgresql://"), at::toString);
        assertEquals("1", DatabasesTest.query(DatabasesTest.jdbc(at, password), ENTRIES));
        assertEquals("t", DatabasesTest.query(DatabasesTest.jdbc(at, password), "SELECT pg_is_in_recovery()"));
        var write = assertThrows(SQLException.class,
                () -> DatabasesTest.execute(DatabasesTest.jdbc(at, password), "INSERT INTO entries VALUES (9)"));
        assertEquals("25006", write.getSQLState(), write::getMessage);
        assertEquals("sleeping", admin.get("/databases/" + id).path("database").path("state").asText(),
                "reading the past does not wake the database");

        var listed = admin.get("/databases/" + id + "/time_travels").path("time_travels");
        assertEquals(1, listed.size(), listed::toString);
        assertEquals("********", listed.get(0).path("connection").path("password").asText());
        assertEquals("1,2", DatabasesTest.query(DatabasesTest.jdbc(connection(id), password), ENTRIES),
                "the database itself is as it was");

        admin.delete("/databases/" + id + "/time_travels/" + trip.path("id").asText());
        assertEquals(0, admin.get("/databases/" + id + "/time_travels").path("time_travels").size());
        assertThrows(SQLException.class, () -> DatabasesTest.jdbc(at, password).close(), "its port is closed");
        assertError(admin.send("DELETE", "/databases/" + id + "/time_travels/" + trip.path("id").asText(), null, Map.of()),
                404, "not_found");
    }

    @Test
    void timeTravelsAreBoundedAndEndWithTheirDatabase() throws Exception {
        String id = create("bounded-trips");
        var now = Instant.now().toString();
        for (int bad : new int[] {5, 86_400}) {
            var r = send(id, Map.of("at", now, "ttl_seconds", bad));
            assertError(r, 400, "invalid_request");
            assertTrue(r.body().path("error").path("details").path("fields").has("ttl_seconds"), r.body()::toString);
        }
        var future = send(id, Map.of("at", Instant.now().plusSeconds(3600).toString()));
        assertError(future, 400, "invalid_request");
        assertTrue(future.body().path("error").path("details").has("earliest"), future.body()::toString);
        assertError(send(id, Map.of()), 400, "invalid_request");

        var first = open(id, Map.of("at", now)).path("connection");
        open(id, Map.of("at", now));
        assertError(send(id, Map.of("at", now)), 409, "conflict");

        admin.delete("/databases/" + id);
        assertThrows(SQLException.class, () -> DatabasesTest.jdbc(first, first.path("password").asText()).close(),
                "a deleted database's time travels end with it");
    }

    private JsonNode open(String id, Map<String, Object> body) {
        var r = send(id, body);
        assertEquals(201, r.status(), () -> r.body().toString());
        return r.body().path("time_travel");
    }

    private HearthClient.Response send(String id, Map<String, Object> body) {
        return admin.send("POST", "/databases/" + id + "/time_travels", body,
                Map.of("Idempotency-Key", UUID.randomUUID().toString()));
    }

    private static Instant pause() throws InterruptedException {
        Thread.sleep(50);
        Instant moment = Instant.now();
        Thread.sleep(50);
        return moment;
    }

    private String create(String name) {
        var r = admin.send("POST", "/workspaces/" + ws + "/databases", Map.of("name", name),
                Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertEquals(201, r.status(), () -> r.body().toString());
        return r.body().path("database").path("id").asText();
    }

    private JsonNode connection(String db) {
        return admin.get("/databases/" + db + "/connection").path("connection");
    }
}
