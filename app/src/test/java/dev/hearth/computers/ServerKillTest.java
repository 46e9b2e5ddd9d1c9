package dev.hearth.computers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.server.pool.PoolSettings;
import dev.hearth.support.ChildServer;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server killed with SIGKILL right after acknowledging a computer. In a class of its own: its
 * child server allocates network slots from the first, as the class's server does, so no other
 * computer may be running on this host (slots are per host until nodes make them per instance).
 */
@HearthServerTest(computers = true)
class ServerKillTest {
    @Test
    void aServerKilledWithSigkillLosesNoComputer(@TempDir Path tmp) throws Exception {
        // Inside the temporary directory, so that what the child leaves beside its data directory (its
        // stderr, SQLite's unpacked library) goes away with it rather than into /tmp.
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        String id = ChildServer.startAndKill(dir, port, "computer");
        try (var restarted = TestServer.startOn(dir, port, c -> c)) {
            var admin2 = restarted.admin();
            var all = admin2.get("/workspaces/killed/computers").path("computers");
            assertEquals(1, all.size(), "no computer is lost or duplicated: " + all);
            assertEquals(id, all.get(0).path("id").asText());
            assertEquals("ready", all.get(0).path("state").asText());
            var out = admin2.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c", "cat /data/f; ps")));
            assertTrue(out.path("stdout").asText().startsWith("acknowledged\n"), out.toString());
            assertTrue(out.path("stdout").asText().contains("sleep 100000"), "the sandbox was adopted, not restarted");
            assertEquals(List.of(id + "-0001"), List.copyOf(TestComputers.sandboxes(dir.resolve("runsc")).keySet()));
        }
    }

    @Test
    void aServerKilledWhileAComputerSleepsWarmLeavesItAsleepAndItWakesWhereItStood(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        String id = ChildServer.startAndKill(dir, port, "warm");
        try (var restarted = TestServer.startOn(dir, port, c -> c)) {
            var admin2 = restarted.admin();
            var computer = admin2.get("/computers/" + id).path("computer");
            assertEquals("sleeping", computer.path("state").asText(), computer.toString());
            assertEquals("warm", computer.path("sleep_mode").asText(), "adopted frozen, not thawed nor lost");
            var out = admin2.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c", "cat /data/f; ps")));
            assertTrue(out.path("stdout").asText().contains("sleep 100000"), "woken where it stood: " + out);
            computer = admin2.get("/computers/" + id).path("computer");
            assertEquals("ready", computer.path("state").asText());
            assertTrue(computer.path("sleep_mode").isNull());
        }
    }

    @Test
    void aServerKilledWithAFullPoolLeavesNoneOfItsSandboxesAndTheClaimedComputerRunsOn(@TempDir Path tmp)
            throws Exception {
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        var ids = List.of(ChildServer.startAndKill(dir, port, "pool").split(" "));
        String claimed = ids.get(0);
        try (var restarted = TestServer.startOn(dir, port, c -> c.withPool(PoolSettings.parse("hearth/busybox=1")))) {
            var admin2 = restarted.admin();
            assertEquals("acknowledged survivor", admin2.post("/computers/" + claimed + "/exec", Map.of("command",
                    List.of("sh", "-c", "echo $(cat /data/f) $(hostname)"))).path("stdout").asText().strip());
            var sandboxes = TestComputers.sandboxes(dir.resolve("runsc")).keySet();
            for (String unclaimed : ids.subList(1, ids.size())) {
                assertFalse(sandboxes.contains(unclaimed + "-0001"), "removed, never handed out: " + sandboxes);
                assertFalse(Files.exists(dir.resolve("computers").resolve(unclaimed)));
                assertTrue(restarted.server().pool().sandboxes().stream().noneMatch(p -> p.id().equals(unclaimed)));
            }
        }
    }

    @Test
    void aClaimCutShortByACrashStartsTheComputerAfreshRatherThanAdoptingAnUnclaimedSandbox(@TempDir Path tmp)
            throws Exception {
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        String cut = ChildServer.startAndKill(dir, port, "pool-claim-cut");
        try (var restarted = TestServer.startOn(dir, port, c -> c)) {
            var admin2 = restarted.admin();
            assertEquals("ready", admin2.get("/computers/" + cut).path("computer").path("state").asText());
            String seen = admin2.post("/computers/" + cut + "/exec", Map.of("command", List.of("sh", "-c",
                    "hostname; tr '\\0' ' ' < /proc/1/cmdline"))).path("stdout").asText();
            assertTrue(seen.startsWith("cut\n"), "named by a fresh start, not left as the pool named it: " + seen);
            assertFalse(seen.contains("--pool"), "its PID 1 is a computer's, not a pooled agent still waiting: " + seen);
        }
    }
}
