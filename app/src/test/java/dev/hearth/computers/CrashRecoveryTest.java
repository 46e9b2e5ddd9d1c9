package dev.hearth.computers;

import static dev.hearth.support.HearthServerExtension.assumeComputers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.support.ChildServer;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * hearth serve killed with SIGKILL while a computer sleeps, wakes or is checkpointed: the next start
 * leaves the computer usable with its /data, nothing paused or duplicated, operations finished and
 * checkpoints ready or failed (never stuck creating), and no files of a failed checkpoint.
 */
class CrashRecoveryTest {

    @BeforeAll
    static void needsComputers() {
        assumeComputers();
    }

    @ParameterizedTest
    @ValueSource(strings = {"sleep", "wake", "checkpoint"})
    void aKilledServerRecoversToACleanState(String action, @TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        String[] started = ChildServer.startAndKill(dir, port, "computer-" + action).split(" ");
        String id = started[0];
        // runsc commands the dead server had started run on to their end, as they would after a real crash.
        Thread.sleep(1500);
        try (var restarted = TestServer.startOn(dir, port, c -> c)) {
            var admin = restarted.admin();
            var computer = admin.get("/computers/" + id).path("computer");
            assertTrue(Set.of("ready", "sleeping").contains(computer.path("state").asText()), computer.toString());
            assertTrue(computer.path("pending").isNull(), computer.toString());
            var out = admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c", "cat /data/f; ls /")));
            assertEquals(0, out.path("exit_code").asInt(), out.toString());
            assertTrue(out.path("stdout").asText().startsWith("acknowledged\n"), out.toString());

            var sandboxes = TestComputers.sandboxes(dir.resolve("runsc"));
            assertEquals(1, sandboxes.keySet().stream().filter(s -> s.startsWith(id)).count(), "one sandbox: " + sandboxes);
            assertFalse(sandboxes.containsValue("paused"), "nothing left paused: " + sandboxes);

            if (started.length > 1) {
                var op = admin.get("/operations/" + started[1] + "?wait=30").path("operation");
                assertNotEquals("running", op.path("state").asText(), op.toString());
                var ready = new HashSet<String>();
                for (var c : admin.get("/computers/" + id + "/checkpoints").path("checkpoints")) {
                    String state = c.path("state").asText();
                    assertTrue(state.equals("ready") || state.equals("failed"), c.toString());
                    if (state.equals("ready")) {
                        ready.add(c.path("id").asText());
                    }
                }
                try (var dirs = Files.list(dir.resolve("checkpoints"))) {
                    var onDisk = new HashSet<String>();
                    dirs.forEach(d -> onDisk.add(d.getFileName().toString()));
                    assertEquals(ready, onDisk, "files only for ready checkpoints");
                } catch (NoSuchFileException e) {
                    assertEquals(Set.of(), ready);
                }
            }
        }
    }
}
