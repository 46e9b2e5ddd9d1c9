package dev.hearth.computers;

import static dev.hearth.support.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestMetrics;
import dev.hearth.support.TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A computer whose sandbox something stopped with SIGSTOP: it shows as unresponsive (it read
 * {@code ready} and hung execs before), and comes back by itself, its memory kept.
 */
@HearthServerTest(config = "withMetrics", computers = true)
class AgentHealthTest {
    @Injected
    private HearthClient admin;
    private final int metricsPort;

    AgentHealthTest() throws Exception {
        metricsPort = TestMetrics.freePort();
    }

    UnaryOperator<Config> withMetrics() {
        return c -> c.withMetricsListen(Optional.of("127.0.0.1:" + metricsPort));
    }

    @Test
    void aStoppedComputerShowsUnresponsiveAndComesBackByItself() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        String id = TestComputers.create(admin, ws, "stopped", "hearth/busybox", java.util.Map.of()).path("id").asText();
        TestComputers.run(admin, id, "echo kept > /tmp/mark");
        assertTrue(computer(id).path("unresponsive_since").isNull(), () -> computer(id).toString());
        assertEquals(0, unresponsive(), "none is counted unresponsive");
        var sentries = sentriesOf(id);
        assertFalse(sentries.isEmpty(), "the computer's sandbox process is found");
        for (long pid : sentries) {
            assertEquals(0, new ProcessBuilder("kill", "-STOP", String.valueOf(pid)).start().waitFor());
        }
        var deaf = eventually(Duration.ofSeconds(30), () -> computer(id), c -> !c.path("unresponsive_since").isNull());
        assertFalse(deaf.path("unresponsive_since").isNull(), "a stopped computer shows it: " + deaf);
        assertEquals("ready", deaf.path("state").asText());
        assertTrue(unresponsive() >= 1, "counted in /metrics");
        var back = eventually(Duration.ofSeconds(60), () -> computer(id), c -> c.path("unresponsive_since").isNull());
        assertTrue(back.path("unresponsive_since").isNull(), "it comes back by itself: " + back);
        assertEquals("kept", TestComputers.run(admin, id, "cat /tmp/mark"), "with its memory");
        assertEquals(0, unresponsive(), "no longer counted");
    }

    private double unresponsive() throws Exception {
        var m = Pattern.compile("(?m)^hearth_computers_unresponsive (\\S+)$").matcher(TestMetrics.scrape(metricsPort));
        assertTrue(m.find(), "the gauge is scraped");
        return Double.parseDouble(m.group(1));
    }

    private JsonNode computer(String id) {
        return admin.get("/computers/" + id).path("computer");
    }

    /** The host's runsc-sandbox processes (gVisor's kernel) of the computer. */
    static List<Long> sentriesOf(String id) throws Exception {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).filter(p -> {
                try {
                    String cmd = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
                    return cmd.startsWith("runsc-sandbox") && cmd.contains(id);
                } catch (Exception gone) {
                    return false;
                }
            }).map(p -> Long.parseLong(p.getFileName().toString())).toList();
        }
    }
}
