package dev.hearth.computers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.support.Eventually;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import java.time.Duration;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every computer's PID 1 is hearth-agent: it runs the image's command (or the computer's own), reaps
 * what others leave behind, and keeps the computer up when the main process ends unless told otherwise.
 */
@HearthServerTest(computers = true, restarts = {"launched"})
class InitTest {
    // Zombies in the process table: the third field of /proc/PID/stat is the state.
    private static final String ZOMBIES = "cat /proc/[0-9]*/stat 2>/dev/null | awk '$3 == \"Z\"' | wc -l";
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeAll
    void workspace() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    @Test
    void theAgentRunsTheImagesCommandAndReapsOrphans(@TempDir Path tmp) throws Exception {
        // A main process that never waits for anyone, as most images' are.
        String sleeper = TestImages.withPrograms(tmp, "echo $$ > /tmp/main.pid; exec sleep 3600", Map.of());
        TestComputers.pull(admin, ws, sleeper);
        String id = TestComputers.create(admin, ws, "sleeper", sleeper, Map.of()).path("id").asText();
        assertEquals("/.hearth/hearth-agent init", TestComputers.run(admin, id,
                "tr '\\0' ' ' < /proc/1/cmdline | cut -d' ' -f1,2"));
        String main = TestComputers.run(admin, id, TestImages.COUNTER_PID.replace("counter.pid", "main.pid"));
        assertEquals("sleep", TestComputers.run(admin, id, "cat /proc/" + main + "/comm"), "the image's command runs");
        assertEquals("1", TestComputers.run(admin, id, "awk '{print $4}' /proc/" + main + "/stat"), "under the agent");
        // Five orphans: their parent exits at once, they end 0.2 s later, and PID 1 must collect them.
        TestComputers.run(admin, id, "for i in 1 2 3 4 5; do (sleep 0.2 &); done; sleep 1");
        assertEquals("0", TestComputers.run(admin, id, ZOMBIES), "no zombie is left");
        admin.delete("/computers/" + id);
    }

    @Test
    void anImageWithoutACommandWaitsForExecs() {
        var made = TestComputers.create(admin, ws, "idle", "hearth/busybox", Map.of());
        String id = made.path("id").asText();
        // The agent alone.
        assertEquals("/.hearth/hearth-agent init --restart on-failure --",
                TestComputers.run(admin, id, "tr '\\0' ' ' < /proc/1/cmdline").strip());
        TestComputers.run(admin, id, "(sleep 0.2 &); sleep 1");
        assertEquals("0", TestComputers.run(admin, id, ZOMBIES));
        assertTrue(admin.get("/computers/" + id).path("computer").path("error").isNull());
        admin.delete("/computers/" + id);
    }

    @Test
    void anImageWhoseCommandIsAShellWaitsForExecs(@TempDir Path tmp) throws Exception {
        // As Debian's and Python's images: CMD is a shell, which ends at once without a terminal.
        String shell = TestImages.withPrograms(tmp, "exec sh", Map.of());
        TestComputers.pull(admin, ws, shell);
        var made = TestComputers.create(admin, ws, "shell", shell, Map.of());
        String id = made.path("id").asText();
        assertEquals("on-failure", made.path("restart").asText());
        Thread.sleep(1500);
        assertEquals("up", TestComputers.run(admin, id, "echo up"));
        var after = admin.get("/computers/" + id).path("computer");
        assertEquals("ready", after.path("state").asText());
        assertTrue(after.path("error").isNull(), after::toString);
        assertEquals(made.path("last_started_at"), after.path("last_started_at"), "never restarted");
        admin.delete("/computers/" + id);
    }

    @Test
    void theComputersOwnCommandRunsAndRestartSaysWhatItsEndDoes() throws Exception {
        var made = TestComputers.create(admin, ws, "launched", "hearth/busybox", Map.of(
                "command", List.of("sh", "-c", "echo first > /data/ran; exit 3"), "restart", "never"));
        String id = made.path("id").asText();
        assertEquals(List.of("sh", "-c", "echo first > /data/ran; exit 3"),
                List.of(made.path("command").get(0).asText(), made.path("command").get(1).asText(),
                        made.path("command").get(2).asText()));
        assertTrue(made.path("entrypoint").isNull(), "the image's");
        Thread.sleep(1000);
        assertEquals("first", TestComputers.run(admin, id, "cat /data/ran"));
        var after = admin.get("/computers/" + id).path("computer");
        assertTrue(after.path("error").isNull(), "exit 3 with restart never: the computer stays up");

        // A new command runs from the next fresh start (here: PID 1 told to stop, then started again).
        admin.patch("/computers/" + id, Map.of("command", List.of("sh", "-c", "echo second > /data/ran; exec sleep 1000"),
                "restart", "on-failure"));
        TestComputers.run(admin, id, "kill -TERM 1");
        String ran = Eventually.eventually(Duration.ofSeconds(10), () -> {
            var r = admin.send("POST", "/computers/" + id + "/exec", Map.of("command", List.of("cat", "/data/ran")), Map.of());
            return r.status() == 200 ? r.body().path("stdout").asText().strip() : "";
        }, "second"::equals);
        assertEquals("second", ran);
        assertTrue(TestComputers.run(admin, id, "ps").contains("sleep 1000"));
        admin.delete("/computers/" + id);
    }

    @Test
    void badLaunchesAreRefused() {
        for (var bad : List.<Map<String, Object>>of(Map.of("command", "sleep 1"), Map.of("entrypoint", List.of(1)),
                Map.of("restart", "sometimes"), Map.of("restart", 1), Map.of("command", List.of("a\u0000b")))) {
            var body = new HashMap<String, Object>(bad);
            body.put("name", "bad");
            body.put("image", "hearth/busybox");
            var r = admin.send("POST", "/workspaces/" + ws + "/computers", body, Map.of("Idempotency-Key",
                    UUID.randomUUID().toString()));
            assertEquals(400, r.status(), () -> bad + ": " + r.body());
            assertEquals("invalid_request", r.body().path("error").path("code").asText());
        }
    }
}
