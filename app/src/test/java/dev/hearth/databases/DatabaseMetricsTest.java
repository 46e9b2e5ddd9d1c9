package dev.hearth.databases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.support.Eventually;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.time.Duration;
import java.sql.DriverManager;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a database uses, moving with what its users do, read without waking it. */
@HearthServerTest(databases = true)
class DatabaseMetricsTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;

    private JsonNode metrics(String id) {
        return admin.get("/databases/" + id + "/metrics").path("metrics");
    }

    @Test
    void sessionsAndSizeFollowWhatClientsDo() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        String id = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "measured")).path("database")
                .path("id").asText();
        var asleep = metrics(id);
        assertEquals(id, asleep.path("database").asText());
        assertEquals("sleeping", asleep.path("state").asText());
        assertTrue(asleep.path("connections").isNull(), asleep.toString());
        assertTrue(asleep.path("size_bytes").asLong() > 1 << 20, "an initialised cluster: " + asleep);
        assertEquals("sleeping", admin.get("/databases/" + id).path("database").path("state").asText(),
                "reading metrics does not wake it");

        var c = admin.get("/databases/" + id + "/connection").path("connection");
        String url = "jdbc:postgresql://127.0.0.1:" + c.path("port").asInt() + "/measured?sslmode=require";
        try (var one = DriverManager.getConnection(url, "measured", c.path("password").asText());
             var two = DriverManager.getConnection(url, "measured", c.path("password").asText())) {
            one.createStatement().execute("CREATE TABLE t AS SELECT g, repeat('x', 200) AS pad "
                    + "FROM generate_series(1, 100000) g");
            var awake = metrics(id);
            assertEquals("ready", awake.path("state").asText());
            assertEquals(2, awake.path("connections").asInt(), awake.toString());
            assertTrue(awake.path("size_bytes").asLong() > asleep.path("size_bytes").asLong() + (15L << 20),
                    "20 MB of rows show: " + asleep + " -> " + awake);
        }
        // A session's backend exits just after its client closes.
        int left = Eventually.eventually(Duration.ofSeconds(10), () -> metrics(id).path("connections").asInt(), n -> n == 0);
        assertEquals(0, left, "both sessions ended");
    }

    @Test
    void theLastHourIsKeptWhileAwake() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        String id = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "charted")).path("database")
                .path("id").asText();
        assertEquals(0, history(id).size(), "a database that never woke has no samples");
        var c = admin.get("/databases/" + id + "/connection").path("connection");
        String url = "jdbc:postgresql://127.0.0.1:" + c.path("port").asInt() + "/charted?sslmode=require";
        try (var session = DriverManager.getConnection(url, "charted", c.path("password").asText())) {
            session.createStatement().execute("CREATE TABLE t (n int)");
            // Two samples 10 s apart; transactions between them give the second a rate.
            var busy = Eventually.eventually(Duration.ofSeconds(60), () -> {
                for (int i = 0; i < 20; i++) {
                    session.createStatement().execute("INSERT INTO t VALUES (1)");
                }
                return history(id);
            }, samples -> samples.size() >= 2 && samples.get(samples.size() - 1).path("transactions_per_second").asDouble() > 0);
            var last = busy.get(busy.size() - 1);
            assertTrue(last.path("transactions_per_second").asDouble() > 0, busy.toString());
            assertEquals(1, last.path("connections").asInt(), "this test's session: " + last);
            assertTrue(last.path("size_bytes").asLong() > 1 << 20, last.toString());
            String since = last.path("at").asText();
            assertEquals(last, history(id, "?since=" + since).getFirst(), "since bounds the samples");
        }
        var refused = admin.send("GET", "/databases/" + id + "/metrics/history?until=yesterday", null, Map.of());
        assertEquals(400, refused.status(), refused.body().toString());
    }

    @Test
    void insightsNameTheSlowStatementAndOutliveASleep() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        String id = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "insightful")).path("database")
                .path("id").asText();
        var c = admin.get("/databases/" + id + "/connection").path("connection");
        String url = "jdbc:postgresql://127.0.0.1:" + c.path("port").asInt() + "/insightful?sslmode=require";
        try (var session = DriverManager.getConnection(url, "insightful", c.path("password").asText())) {
            for (int i = 0; i < 2; i++) {
                session.createStatement().execute("SELECT pg_sleep(0.3)");
            }
            for (int i = 0; i < 5; i++) {
                session.createStatement().execute("SELECT 1");
            }
        }
        var top = admin.get("/databases/" + id + "/insights").path("statements").get(0);
        assertTrue(top.path("query").asText().contains("pg_sleep"), top.toString());
        assertEquals(2, top.path("calls").asInt(), top.toString());
        assertTrue(top.path("total_millis").asDouble() >= 550, top.toString());

        admin.post("/databases/" + id + "/sleep", Map.of());
        var afterSleep = admin.get("/databases/" + id + "/insights?order=mean&limit=1").path("statements");
        assertEquals(1, afterSleep.size(), afterSleep.toString());
        assertTrue(afterSleep.get(0).path("query").asText().contains("pg_sleep"), "kept through a sleep: " + afterSleep);
        for (String bad : new String[] {"order=slowest", "limit=0", "limit=many"}) {
            assertEquals(400, admin.send("GET", "/databases/" + id + "/insights?" + bad, null, Map.of()).status(), bad);
        }
    }

    private JsonNode database(String id) {
        return admin.get("/databases/" + id).path("database");
    }

    /** An archive that cannot be written shows in the metrics and as the database's error, and so does its recovery. */
    @Test
    void aFailingArchiveShowsInTheMetrics() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        String id = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "archived")).path("database")
                .path("id").asText();
        var c = admin.get("/databases/" + id + "/connection").path("connection");
        String url = "jdbc:postgresql://127.0.0.1:" + c.path("port").asInt() + "/archived?sslmode=require";
        var archive = server.dataDir.resolve("databases/history/" + id + "/wal");
        try (var session = DriverManager.getConnection(url, "archived", c.path("password").asText())) {
            session.createStatement().execute("SELECT 1"); // awake, its archive directory made
            java.nio.file.Files.setPosixFilePermissions(archive, java.util.Set.of());
            try {
                // More than a 16 MB segment: one is complete and the archiver tries it.
                session.createStatement().execute("CREATE TABLE big AS SELECT repeat('x', 1000) AS pad "
                        + "FROM generate_series(1, 25000)");
                var failing = Eventually.eventually(Duration.ofSeconds(60), () -> metrics(id).path("archiving"),
                        a -> a.path("failing").asBoolean());
                assertTrue(failing.path("failing").asBoolean(), failing.toString());
                assertTrue(failing.path("last_failed_wal").asText().matches("[0-9A-F]{24}"), failing.toString());
                var shown = Eventually.eventually(Duration.ofSeconds(90), () -> database(id),
                        d -> d.path("error").path("code").asText().equals("archive_failing"));
                assertEquals("archive_failing", shown.path("error").path("code").asText(), "the database says so: " + shown);
                assertEquals("ready", shown.path("state").asText(), "and still takes writes");
            } finally {
                java.nio.file.Files.setPosixFilePermissions(archive,
                        java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
            }
            session.createStatement().execute("CREATE TABLE bigger AS SELECT repeat('y', 1000) AS pad "
                    + "FROM generate_series(1, 25000)");
            var healed = Eventually.eventually(Duration.ofSeconds(120), () -> metrics(id).path("archiving"),
                    a -> !a.path("failing").asBoolean());
            assertFalse(healed.path("failing").asBoolean(), "archiving goes on once it can: " + healed);
            var cleared = Eventually.eventually(Duration.ofSeconds(90), () -> database(id), d -> d.path("error").isNull());
            assertTrue(cleared.path("error").isNull(), "the error goes once archiving goes on: " + cleared);
        }
        assertTrue(metrics(id).has("archiving"), "the field is always there (null asleep)");
    }

    private java.util.List<JsonNode> history(String id) {
        return history(id, "");
    }

    private java.util.List<JsonNode> history(String id, String query) {
        return admin.get("/databases/" + id + "/metrics/history" + query).path("samples").valueStream().toList();
    }
}
