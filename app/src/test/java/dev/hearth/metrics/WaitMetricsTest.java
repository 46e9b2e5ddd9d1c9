package dev.hearth.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.support.HearthServerExtension;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestMetrics;
import dev.hearth.support.TestServer;
import java.sql.DriverManager;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The waits users feel, as histograms: creates, execs, wakes of computers and wakes on connect of databases. */
@HearthServerTest(config = "withMetrics", computers = true)
class WaitMetricsTest {
    @Injected
    private HearthClient admin;
    private final int port;

    WaitMetricsTest() throws Exception {
        port = TestMetrics.freePort();
    }

    UnaryOperator<Config> withMetrics() {
        return c -> c.withMetricsListen(Optional.of("127.0.0.1:" + port));
    }

    private long count(String metric) throws Exception {
        return TestMetrics.count(port, metric);
    }

    @Test
    void createExecAndWakeOfAComputerAreTimed() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        long creates = count("hearth_computer_create_seconds");
        long execs = count("hearth_computer_exec_seconds");
        long wakes = count("hearth_computer_wake_seconds");
        String id = TestComputers.create(admin, ws, "timed", "hearth/busybox", Map.of()).path("id").asText();
        TestComputers.run(admin, id, "true");
        TestComputers.run(admin, id, "true");
        var slept = admin.post("/computers/" + id + "/sleep", Map.of());
        if (slept.path("operations").size() > 0) {
            admin.get("/operations/" + slept.path("operations").get(0).asText() + "?wait=60");
        }
        admin.post("/computers/" + id + "/wake", null);
        assertEquals(creates + 1, count("hearth_computer_create_seconds"));
        assertEquals(execs + 2, count("hearth_computer_exec_seconds"));
        assertEquals(wakes + 1, count("hearth_computer_wake_seconds"));
        admin.delete("/computers/" + id);
    }

    @Test
    void aConnectionThatWakesADatabaseIsTimed() throws Exception {
        Assumptions.assumeTrue(HearthServerExtension.databasesUnavailable().isEmpty(), "databases cannot run here");
        String ws = TestServer.workspace(admin).path("id").asText();
        long wakes = count("hearth_database_wake_seconds");
        String id = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "timed")).path("database")
                .path("id").asText();
        var c = admin.get("/databases/" + id + "/connection").path("connection");
        try (var jdbc = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + c.path("port").asInt()
                + "/timed?sslmode=require", "timed", c.path("password").asText())) {
            jdbc.createStatement().execute("SELECT 1");
        }
        assertEquals(wakes + 1, count("hearth_database_wake_seconds"));
        admin.delete("/databases/" + id);
    }
}
