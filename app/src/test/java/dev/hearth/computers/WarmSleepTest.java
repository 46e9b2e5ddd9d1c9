package dev.hearth.computers;

import static dev.hearth.support.TestComputers.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.support.Eventually;
import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.server.computers.SleepSettings;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestMetrics;
import dev.hearth.support.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sleep at two depths on real sandboxes: a computer falls asleep warm (frozen in memory: no CPU at
 * all, woken where it stood), goes cold (memory to disk, the sandbox gone) after the warm period, and
 * a warm sleeper can be checkpointed, forked from, restored and deleted like any other.
 */
@HearthServerTest(config = "withMetrics", computers = true)
class WarmSleepTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;
    private String counterImage;
    private final int metricsPort;

    WarmSleepTest() throws Exception {
        metricsPort = TestMetrics.freePort();
    }

    UnaryOperator<Config> withMetrics() {
        return c -> c.withMetricsListen(Optional.of("127.0.0.1:" + metricsPort));
    }

    private String metrics() throws Exception {
        return TestMetrics.scrape(metricsPort);
    }

    @BeforeAll
    void start(@TempDir Path tmp) throws Exception {
        ws = TestServer.workspace(admin).path("id").asText();
        counterImage = TestImages.counter(tmp);
        TestComputers.pull(admin, ws, counterImage);
    }

    private String create(String name) {
        return TestComputers.create(admin, ws, name, counterImage, Map.of()).path("id").asText();
    }

    private String run(String computer, String script) {
        return TestComputers.run(admin, computer, script);
    }

    private JsonNode sleep(String computer) {
        var r = admin.send("POST", "/computers/" + computer + "/sleep", Map.of(), Map.of());
        assertEquals(200, r.status(), () -> r.body().toString());
        return r.body().path("computer");
    }

    private JsonNode computer(String id) {
        return admin.get("/computers/" + id).path("computer");
    }

    private long cpuNanos(String sandboxId) throws Exception {
        return TestComputers.cpuNanos(server.dataDir, sandboxId);
    }

    @Test
    void aWarmSleeperSpendsNoCpuAndWakesWhereItStood() throws Exception {
        String id = create("frozen");
        String pid = run(id, TestImages.COUNTER_PID);
        var asleep = sleep(id);
        assertEquals("sleeping", asleep.path("state").asText());
        assertEquals("warm", asleep.path("sleep_mode").asText());
        long cpu = cpuNanos(id + "-0001");
        Thread.sleep(1500);
        assertEquals(cpu, cpuNanos(id + "-0001"), "a warm sleeper runs nothing at all");
        assertTrue(Pattern.compile("(?m)^hearth_computers_sleeping\\{mode=\"warm\"} [1-9]").matcher(metrics()).find(),
                "counted as a warm sleeper");

        var awake = admin.send("POST", "/computers/" + id + "/wake", Map.of(), Map.of()).body().path("computer");
        assertEquals("ready", awake.path("state").asText());
        assertTrue(awake.path("sleep_mode").isNull());
        assertEquals(pid, run(id, TestImages.COUNTER_PID), "the same main process, its memory kept");
        assertTrue(cpuNanos(id + "-0001") > cpu, "it runs again");
        delete(id);
    }

    @Test
    void aWarmSleeperIsCheckpointedForkedRestoredAndDeletedLikeAnyOther() throws Exception {
        String id = create("sleeper");
        run(id, "echo kept > /data/k; echo overlay > /o");
        String pid = run(id, TestImages.COUNTER_PID);
        sleep(id);

        var made = admin.send("POST", "/computers/" + id + "/checkpoints", Map.of("name", "warm"), key());
        assertEquals(202, made.status(), () -> made.body().toString());
        String op = made.body().path("operations").get(0).asText();
        assertEquals("succeeded", admin.get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
        String chk = made.body().path("checkpoint").path("id").asText();
        assertEquals("warm", computer(id).path("sleep_mode").asText(), "a checkpoint leaves it asleep as it was");

        var fork = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "sleeper-fork",
                "from_checkpoint", chk), key());
        assertEquals(201, fork.status(), () -> fork.body().toString());
        String forkId = fork.body().path("computer").path("id").asText();
        assertEquals("ready", fork.body().path("computer").path("state").asText());
        assertEquals("kept\noverlay\n" + pid, run(forkId, "cat /data/k /o; " + TestImages.COUNTER_PID));

        run(id, "echo changed > /data/k");
        sleep(id);
        var restored = admin.post("/computers/" + id + "/restore", Map.of("checkpoint", chk)).path("computer");
        assertEquals("ready", restored.path("state").asText());
        assertEquals(2, restored.path("generation").asInt());
        assertEquals("kept", run(id, "cat /data/k"));

        sleep(id);
        delete(id);
        delete(forkId);
        var left = TestComputers.sandboxes(server.dataDir.resolve("runsc")).keySet();
        assertFalse(left.stream().anyMatch(s -> s.startsWith(id) || s.startsWith(forkId)), left.toString());
    }

    @Test
    void aGlibcComputersBackgroundProcessSleepsWarmAndRunsOnWhereItStood() throws Exception {
        String image = TestImages.debian();
        TestComputers.pull(admin, ws, image);
        String id = TestComputers.create(admin, ws, TestServer.uniqueName("bookworm"), image, Map.of()).path("id").asText();
        // python3 keeps a count in memory only; its file shows where it stands (replaced whole, never
        // seen empty: a truncate-then-write once read as "" between the two).
        var started = admin.post("/computers/" + id + "/processes", Map.of("command", List.of("python3", "-c",
                "import os, time\ni = 0\nwhile True:\n    i += 1\n    open('/tmp/n.t', 'w').write(str(i))\n"
                        + "    os.replace('/tmp/n.t', '/tmp/n')\n    time.sleep(0.05)")));
        int pid = started.path("process").path("pid").asInt();
        String before = "";
        for (int i = 0; i < 100 && before.isEmpty(); i++) {
            Thread.sleep(50);
            before = run(id, "cat /tmp/n 2>/dev/null || true");
        }
        assertEquals("warm", sleep(id).path("sleep_mode").asText());
        long cpu = cpuNanos(id + "-0001");
        Thread.sleep(500);
        assertEquals(cpu, cpuNanos(id + "-0001"), "python3 is frozen too");
        String after = run(id, "sleep 0.3; cat /tmp/n");
        assertTrue(Integer.parseInt(after) > Integer.parseInt(before), before + " then " + after);
        assertEquals("running", admin.get("/computers/" + id + "/processes/" + pid).path("process").path("state").asText());
        delete(id);
    }

    @Test
    void warmSleepersGoColdAfterTheWarmPeriodAndWakeFromDisk() throws Exception {
        server.restart(c -> c.withSleep(new SleepSettings(Duration.ofSeconds(1), 0)));
        try {
            String id = create("dozer");
            String pid = run(id, TestImages.COUNTER_PID);
            assertEquals("warm", sleep(id).path("sleep_mode").asText());
            String mode = Eventually.eventually(Duration.ofSeconds(30),
                    () -> computer(id).path("sleep_mode").asText(), m -> !m.equals("warm"));
            assertEquals("cold", mode);
            assertEquals("sleeping", computer(id).path("state").asText());
            var left = TestComputers.sandboxes(server.dataDir.resolve("runsc")).keySet();
            assertFalse(left.stream().anyMatch(s -> s.startsWith(id)), "a cold sleeper has no sandbox: " + left);
            assertEquals(pid, run(id, TestImages.COUNTER_PID), "restored from disk, its memory kept");
            assertEquals("ready", computer(id).path("state").asText());
            delete(id);
        } finally {
            server.restart(c -> c.withSleep(SleepSettings.defaults()));
        }
    }

    private void delete(String id) {
        var r = admin.send("DELETE", "/computers/" + id, null, Map.of());
        assertEquals(200, r.status(), () -> r.body().toString());
    }
}
