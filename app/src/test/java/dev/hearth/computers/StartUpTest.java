package dev.hearth.computers;

import static dev.hearth.support.HearthServerExtension.assumeComputers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.client.TokenSource;
import dev.hearth.server.process.Commands;
import dev.hearth.support.ChildServer;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code hearth serve} does while it starts and what it adopts: creates sent while it
 * reconciles wait until it serves (503 starting) and are never swept away as leftovers; a sandbox
 * found running without its network is started afresh and says so, never left ready and deaf.
 */
class StartUpTest {
    private static final Duration RACE = Duration.ofSeconds(180);

    @BeforeAll
    static void needsComputers() {
        assumeComputers();
    }

    /**
     * The restart has work to do while creates race it: three computers whose sandboxes died with the
     * server are started again, one after the other, before the sweep of what no computer owns.
     */
    @Test
    void createsRacingARestartAllEndReadyAndKeepTheirMemoryThroughTheNext(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        String survivor = ChildServer.startAndKill(dir, port, "computer");
        var restarting = new ArrayList<String>();
        var first = ChildServer.serve(dir, port);
        try {
            var admin = awaitServing(port, dir);
            for (int i = 0; i < 3; i++) {
                restarting.add(admin.create("/workspaces/killed/computers", Map.of("name", "restarting-" + i,
                        "image", "hearth/busybox")).path("computer").path("id").asText());
            }
        } finally {
            first.destroyForcibly().waitFor();
        }
        for (String id : restarting) {
            new ProcessBuilder("runsc", "--root", dir.resolve("runsc").toString(), "delete", "--force", id + "-0001")
                    .start().waitFor();
        }
        var made = new ConcurrentHashMap<String, String>();
        var child = ChildServer.serve(dir, port);
        try {
            var admin = client(port, dir);
            try (var racers = Executors.newVirtualThreadPerTaskExecutor()) {
                var races = new ArrayList<Future<?>>();
                for (int racer = 0; racer < 3; racer++) {
                    int r = racer;
                    races.add(racers.submit(() -> {
                        for (int i = 0; i < 2; i++) {
                            made.put("race-" + r + "-" + i, createWhileStarting(admin, "race-" + r + "-" + i));
                        }
                        return null;
                    }));
                }
                for (var race : races) {
                    race.get();
                }
            }
            for (String id : made.values()) {
                var c = admin.get("/computers/" + id).path("computer");
                assertEquals("ready", c.path("state").asText(), c.toString());
                assertTrue(c.path("error").isNull(), c.toString());
                var out = admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c",
                        "sleep 200000 > /dev/null 2>&1 & echo started")));
                assertEquals("started\n", out.path("stdout").asText(), out.toString());
            }
        } finally {
            child.destroyForcibly().waitFor();
        }
        try (var restarted = TestServer.startOn(dir, port, c -> c)) {
            var admin = restarted.admin();
            assertEquals(10, admin.get("/workspaces/killed/computers").path("computers").size());
            assertAdoptedWithMemory(admin, survivor, "sleep 100000");
            for (String id : made.values()) {
                assertAdoptedWithMemory(admin, id, "sleep 200000");
            }
            assertEquals(10, TestComputers.sandboxes(dir.resolve("runsc")).size());
        }
    }

    private static HearthClient client(int port, Path dir) {
        return new HearthClient("http://127.0.0.1:" + port + "/v1", KeyFileTokens.read(dir.resolve("admin-key.json")));
    }

    private static HearthClient awaitServing(int port, Path dir) throws InterruptedException {
        var anonymous = new HearthClient("http://127.0.0.1:" + port + "/v1", TokenSource.none());
        long deadline = System.nanoTime() + RACE.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (anonymous.send("GET", "/health", null, Map.of()).status() == 200) {
                    return client(port, dir);
                }
            } catch (RuntimeException notListeningYet) {
                // again
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the server did not serve within " + RACE);
    }

    @Test
    void anAdoptedSandboxWithoutItsNetworkIsStartedAfreshAndSaysSo(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        String id = ChildServer.startAndKill(dir, port, "computer");
        String netns;
        try (var markers = Files.list(dir.resolve("networks"))) {
            netns = Files.readString(markers.findFirst().orElseThrow());
        }
        assertTrue(Commands.run(List.of("ip", "netns", "del", netns), Duration.ofSeconds(10)).ok());
        try (var restarted = TestServer.startOn(dir, port, c -> c)) {
            var admin = restarted.admin();
            var c = admin.get("/computers/" + id).path("computer");
            assertEquals("ready", c.path("state").asText(), c.toString());
            assertEquals("memory_lost", c.path("error").path("code").asText(), c.toString());
            assertTrue(c.path("error").path("message").asText().contains("network"), c.toString());
            var out = admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c", "cat /data/f; ps")));
            assertTrue(out.path("stdout").asText().startsWith("acknowledged\n"), "/data is kept: " + out);
            assertTrue(!out.path("stdout").asText().contains("sleep 100000"), "started afresh: " + out);
        }
    }

    private static void assertAdoptedWithMemory(HearthClient admin, String id, String process) {
        var c = admin.get("/computers/" + id).path("computer");
        assertEquals("ready", c.path("state").asText(), c.toString());
        assertTrue(c.path("error").isNull(), "adopted, not started afresh: " + c);
        var out = admin.post("/computers/" + id + "/exec", Map.of("command", List.of("ps")));
        assertTrue(out.path("stdout").asText().contains(process), "its processes ran on: " + out);
    }

    /**
     * Creates a computer as a client does whose server is (re)starting: connection refused and
     * 503 starting are retried with the same Idempotency-Key; answers the id of what a 201 made.
     */
    private static String createWhileStarting(HearthClient admin, String name) throws InterruptedException {
        String key = UUID.randomUUID().toString();
        long deadline = System.nanoTime() + RACE.toNanos();
        while (true) {
            try {
                var answer = admin.send("POST", "/workspaces/killed/computers", Map.of("name", name,
                        "image", "hearth/busybox"), Map.of("Idempotency-Key", key));
                JsonNode body = answer.body();
                if (answer.status() == 201) {
                    return body.path("computer").path("id").asText();
                }
                assertEquals(503, answer.status(), () -> name + ": " + body);
                assertEquals("starting", body.path("error").path("code").asText(), body.toString());
            } catch (RuntimeException notListeningYet) {
                if (System.nanoTime() > deadline) {
                    throw notListeningYet;
                }
            }
            assertTrue(System.nanoTime() < deadline, name + " was never created");
            Thread.sleep(20);
        }
    }
}
