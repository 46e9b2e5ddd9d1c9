package dev.hearth.computers;

import static dev.hearth.support.HearthServerExtension.assumeComputers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.support.ChildServer;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
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

    /**
     * A create (of a built-in image, of one it must pull, from a checkpoint) or a delete cut short:
     * after the restart every computer is ready or failed, never creating or half-deleted; the one
     * being made exists ready, or not at all; nothing runs or lies on disk without a live computer.
     */
    @ParameterizedTest
    @ValueSource(strings = {"create", "create-pulled", "fork", "delete"})
    void aCreateOrDeleteCutShortEndsReadyFailedOrGone(String path, @TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        String name = ChildServer.startAndKill(dir, port, "crash-" + path);
        Thread.sleep(1000);
        try (var restarted = TestServer.startOn(dir, port, c -> c)) {
            var admin = restarted.admin();
            var computers = settled(admin);
            var liveIds = new HashSet<String>();
            for (var c : computers) {
                String state = c.path("state").asText();
                assertTrue(state.equals("ready") || state.equals("failed"), c.toString());
                assertTrue(c.path("pending").isNull(), c.toString());
                liveIds.add(c.path("id").asText());
                if (state.equals("ready")) {
                    var out = admin.post("/computers/" + c.path("id").asText() + "/exec",
                            Map.of("command", List.of("sh", "-c", "cat /data/f 2>/dev/null; echo ok")));
                    assertTrue(out.path("stdout").asText().endsWith("ok\n"), out.toString());
                    if (c.path("name").asText().equals("fork")) {
                        assertEquals("forked\nok\n", out.path("stdout").asText(), "a fork has its checkpoint's /data");
                    }
                    if (c.path("name").asText().equals("doomed")) {
                        assertEquals("kept\nok\n", out.path("stdout").asText(), "a computer not deleted keeps /data");
                    }
                }
            }
            if (!path.equals("delete")) {
                assertTrue(computers.stream().anyMatch(c -> c.path("name").asText().equals(name))
                        || admin.send("GET", "/computers/" + name + "?workspace=killed", null, Map.of()).status() == 404);
            }
            var sandboxes = TestComputers.sandboxes(dir.resolve("runsc"));
            for (String sandbox : sandboxes.keySet()) {
                assertEquals(1, liveIds.stream().filter(sandbox::startsWith).count(),
                        "sandbox " + sandbox + " belongs to a live computer: " + liveIds);
            }
            for (String id : liveIds) {
                assertTrue(sandboxes.keySet().stream().filter(s -> s.startsWith(id)).count() <= 1, sandboxes.toString());
            }
            if (Files.isDirectory(dir.resolve("computers"))) {
                try (var dirs = Files.list(dir.resolve("computers"))) {
                    dirs.forEach(d -> assertTrue(liveIds.contains(d.getFileName().toString()), "files of no computer: " + d));
                }
            }
            System.out.println("after a " + path + " cut short: " + computers.stream()
                    .map(c -> c.path("name").asText() + " " + c.path("state").asText()).toList());
        }
    }

    /** The workspace's computers once none is being created any more (a resumed pull finishes first). */
    private static List<JsonNode> settled(HearthClient admin) throws InterruptedException {
        for (int i = 0; ; i++) {
            var list = new ArrayList<JsonNode>();
            admin.get("/workspaces/killed/computers").path("computers").forEach(list::add);
            if (list.stream().noneMatch(c -> c.path("state").asText().equals("creating")) || i == 120) {
                return list;
            }
            Thread.sleep(500);
        }
    }
}
