package dev.hearth.computers;

import static dev.hearth.support.Eventually.eventually;
import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import java.time.Duration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sleep and wake on real sandboxes: memory, overlay and /data come back exactly as they were. */
@HearthServerTest(computers = true)
class SleepTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;
    // The main process counts in memory (processes started through exec end at sleep, as in the spec).
    private String counterImage;

    @BeforeAll
    void start(@TempDir Path tmp) throws Exception {
        ws = TestServer.workspace(admin).path("id").asText();
        counterImage = TestImages.counter(tmp);
        TestComputers.pull(admin, ws, counterImage);
    }

    private JsonNode create(String name, Map<String, Object> extra) {
        return TestComputers.create(admin, ws, name, counterImage, extra);
    }

    private String run(String computer, String script) {
        return TestComputers.run(admin, computer, script);
    }

    private JsonNode sleep(String computer) {
        var r = admin.send("POST", "/computers/" + computer + "/sleep", Map.of(), Map.of());
        assertEquals(200, r.status(), () -> r.body().toString());
        assertEquals("sleeping", r.body().path("computer").path("state").asText());
        assertTrue(r.body().path("computer").path("pending").isNull());
        return r.body().path("computer");
    }

    @Test
    void memoryOverlayAndDataSurviveSleepAndWake() {
        String id = create("counter", Map.of()).path("id").asText();
        run(id, "head -c 100000 /dev/urandom > /data/blob; head -c 100000 /dev/urandom > /blob; sleep 0.3");
        String pid = run(id, TestImages.COUNTER_PID);
        String sums = run(id, "md5sum /data/blob /blob");
        long before = Long.parseLong(run(id, "cat /tmp/count"));

        sleep(id);
        assertEquals("sleeping", admin.get("/computers/" + id).path("computer").path("state").asText());
        // A second sleep answers the sleeping computer unchanged.
        assertEquals("sleeping", sleep(id).path("state").asText());

        var woken = admin.post("/computers/" + id + "/wake", Map.of()).path("computer");
        assertEquals("ready", woken.path("state").asText());
        assertEquals(1, woken.path("generation").asInt(), "waking is not a restore");
        assertEquals(pid, run(id, "cat /tmp/counter.pid"), "the same process, not a new one");
        long after = Long.parseLong(run(id, "sleep 0.2; cat /tmp/count"));
        assertTrue(after > before, "the counter went on from " + before + " (now " + after + ")");
        assertTrue(run(id, "kill -0 " + pid + " && echo alive").contains("alive"));
        assertEquals(sums, run(id, "md5sum /data/blob /blob"));
    }

    @Test
    void tenSleepWakeCyclesKeepEveryByte() {
        String id = create("cycles", Map.of()).path("id").asText();
        run(id, "mkdir -p /data/d /root/r; for i in 1 2 3 4 5; do head -c 50000 /dev/urandom > /data/d/$i; "
                + "head -c 50000 /dev/urandom > /root/r/$i; done");
        String sums = run(id, "md5sum /data/d/* /root/r/*");
        String pid = run(id, TestImages.COUNTER_PID);
        for (int cycle = 1; cycle <= 10; cycle++) {
            sleep(id);
            // Exec wakes a sleeping computer, and each cycle adds a file that must stay too.
            run(id, "echo " + cycle + " >> /data/cycles; echo " + cycle + " >> /root/cycles");
        }
        assertEquals(sums, run(id, "md5sum /data/d/* /root/r/*"));
        assertEquals("1 2 3 4 5 6 7 8 9 10", run(id, "cat /data/cycles | tr '\\n' ' '").strip());
        assertEquals("1 2 3 4 5 6 7 8 9 10", run(id, "cat /root/cycles | tr '\\n' ' '").strip());
        assertEquals(pid, run(id, "cat /tmp/counter.pid"));
        assertTrue(run(id, "kill -0 " + pid + " && echo alive").contains("alive"));
    }

    @Test
    void sleepEndsARunningExecWithAClearAnswer() throws Exception {
        String id = create("busy", Map.of()).path("id").asText();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var exec = pool.submit(() -> admin.send("POST", "/computers/" + id + "/exec",
                    Map.of("command", List.of("sh", "-c", "touch /tmp/begun; exec sleep 1000")), Map.of()));
            // Sleep only once the command runs: sent earlier, it would sleep first and the exec wake it.
            while (!run(id, "test -e /tmp/begun && echo yes || echo no").equals("yes")) {
                Thread.sleep(50);
            }
            sleep(id);
            var answer = exec.get();
            assertEquals(200, answer.status(), () -> answer.body().toString());
            assertEquals(137, answer.body().path("exit_code").asInt(), "killed, and said so");
        }
    }

    @Test
    void aWakeStormWakesOnceAndServesEveryone() throws Exception {
        String id = create("storm", Map.of()).path("id").asText();
        String pid = run(id, TestImages.COUNTER_PID);
        sleep(id);
        var calls = new ArrayList<Callable<HearthClient.Response>>();
        for (int i = 0; i < 50; i++) {
            calls.add(() -> admin.send("POST", "/computers/" + id + "/exec",
                    Map.of("command", List.of("cat", "/tmp/counter.pid")), Map.of()));
        }
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Future<HearthClient.Response> f : pool.invokeAll(calls)) {
                var r = f.get();
                assertEquals(200, r.status(), () -> r.body().toString());
                assertEquals(pid, r.body().path("stdout").asText().strip());
            }
        }
        var sandboxes = TestComputers.sandboxes(server.dataDir.resolve("runsc")).keySet().stream()
                .filter(s -> s.startsWith(id)).toList();
        assertEquals(1, sandboxes.size(), "one sandbox after the storm: " + sandboxes);
    }

    @Test
    void idleComputersFallAsleepOnTheirOwnAndExecWakesThem() throws Exception {
        String id = create("dozy", Map.of("auto_sleep_seconds", 2)).path("id").asText();
        assertEquals(2, admin.get("/computers/" + id).path("computer").path("auto_sleep_seconds").asInt());
        run(id, "echo hello > /note");
        String state = eventually(Duration.ofSeconds(10),
                () -> admin.get("/computers/" + id).path("computer").path("state").asText(), "sleeping"::equals);
        assertEquals("sleeping", state);
        assertEquals("hello", run(id, "cat /note"));
        // An exec running for longer than the window counts as activity: no sleep under it.
        assertEquals("done", run(id, "sleep 4; echo done"));
        var never = new HashMap<String, Object>();
        never.put("auto_sleep_seconds", null);
        var off = admin.send("PATCH", "/computers/" + id, never, Map.of());
        assertTrue(off.body().path("computer").path("auto_sleep_seconds").isNull());
        // On a loaded machine the 2 s window may close between the exec's end and the PATCH, and the
        // computer rightly sleeps: wake it, then it must stay awake with auto-sleep off.
        assertEquals("awake", run(id, "echo awake"));
        Thread.sleep(3500);
        assertEquals("ready", admin.get("/computers/" + id).path("computer").path("state").asText());
    }

    @Test
    void aSleepingComputerStaysAsleepThroughARestartOfHearth() throws Exception {
        String id = create("sleeper", Map.of()).path("id").asText();
        String pid = run(id, TestImages.COUNTER_PID);
        sleep(id);
        server.restart();
        admin = server.admin();
        assertEquals("sleeping", admin.get("/computers/" + id).path("computer").path("state").asText());
        assertEquals(pid, run(id, "cat /tmp/counter.pid"));
    }

    @Test
    void badRequestsAreRefusedClearly() {
        String id = create("picky", Map.of()).path("id").asText();
        for (Object bad : List.of(0, -5, "soon", 1.5, 10_000_000)) {
            var r = admin.send("PATCH", "/computers/" + id, Map.of("auto_sleep_seconds", bad), Map.of());
            assertError(r, 400, "invalid_request");
        }
        var r = admin.send("POST", "/computers/" + id + "/sleep", Map.of("force", "yes"), Map.of());
        assertError(r, 400, "invalid_request");
        assertNotEquals("sleeping", admin.get("/computers/" + id).path("computer").path("state").asText());
        admin.delete("/computers/" + id);
        assertError(admin.send("POST", "/computers/" + id + "/sleep", Map.of(), Map.of()), 409, "conflict");
        assertError(admin.send("POST", "/computers/" + id + "/wake", Map.of(), Map.of()), 409, "conflict");
    }
}
