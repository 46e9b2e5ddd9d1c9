package dev.hearth.computers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every computer's PID 1 is hearth-agent: it runs the image's command and reaps what others leave behind. */
@HearthServerTest(computers = true)
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
        String main = TestComputers.run(admin, id, "cat /tmp/main.pid");
        assertEquals("sleep", TestComputers.run(admin, id, "cat /proc/" + main + "/comm"), "the image's command runs");
        assertEquals("1", TestComputers.run(admin, id, "awk '{print $4}' /proc/" + main + "/stat"), "under the agent");
        // Five orphans: their parent exits at once, they end 0.2 s later, and PID 1 must collect them.
        TestComputers.run(admin, id, "for i in 1 2 3 4 5; do (sleep 0.2 &); done; sleep 1");
        assertEquals("0", TestComputers.run(admin, id, ZOMBIES), "no zombie is left");
        admin.delete("/computers/" + id);
    }

    @Test
    void anImageWithoutACommandWaitsForExecs() {
        var made = TestComputers.create(admin, ws, "idle", "hearth/busybox",
                Map.of("resources", Map.of("memory_mb", 256)));
        String id = made.path("id").asText();
        // The agent alone, holding the computer's processes to its memory.
        assertEquals("/.hearth/hearth-agent init --memory-limit " + (256L << 20) + " --",
                TestComputers.run(admin, id, "tr '\\0' ' ' < /proc/1/cmdline").strip());
        TestComputers.run(admin, id, "(sleep 0.2 &); sleep 1");
        assertEquals("0", TestComputers.run(admin, id, ZOMBIES));
        assertTrue(admin.get("/computers/" + id).path("computer").path("error").isNull());
        admin.delete("/computers/" + id);
    }
}
