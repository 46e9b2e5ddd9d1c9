package dev.hearth.databases;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
