package dev.hearth.nodes;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.support.Eventually;
import dev.hearth.fs.Disk;
import dev.hearth.server.Config;
import dev.hearth.server.HearthServer;
import dev.hearth.server.nodes.NodeSettings;
import dev.hearth.server.router.RouterSettings;
import dev.hearth.support.ChildServer;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestServer;
import dev.hearth.support.TestMetrics;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Two nodes, a and b, each a real hearth serve with its own data directory, sharing one PostgreSQL
 * store: each runs, reconciles and answers for its own computers and databases only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodesTest {
    private TwoNodes nodes;
    private String ws;

    @BeforeAll
    void start() throws Exception {
        nodes = TwoNodes.start(Optional.empty());
        ws = nodes.ws;
    }

    @AfterAll
    void stop() throws Exception {
        nodes.close();
    }

    @Test
    void eachNodeRunsAndReconcilesItsOwnComputersAndDatabases() throws Exception {
        var a = nodes.a;
        var onA = nodes.on("a", () -> TestComputers.create(a.admin(), ws, "on-a", "hearth/busybox", Map.of()));
        var onB = nodes.on("b", () -> TestComputers.create(nodes.b.admin(), ws, "on-b", "hearth/busybox", Map.of()));
        assertEquals("a", onA.path("node").asText());
        assertEquals("b", onB.path("node").asText());
        var db = nodes.on("b", () -> nodes.b.admin().send("POST", "/workspaces/" + ws + "/databases",
                Map.of("name", "db-b"), TestComputers.key()));
        assertEquals(201, db.status(), () -> db.body().toString());
        assertEquals("b", db.body().path("database").path("node").asText());

        // A restart of a adopts its own and leaves b's alone: b's computer was not started on a.
        String startedB = onB.path("last_started_at").asText();
        a.restart();
        assertEquals("hello", TestComputers.run(a.admin(), onA.path("id").asText(), "echo hello"));
        var afterB = nodes.b.admin().get("/computers/" + onB.path("id").asText()).path("computer");
        assertEquals(startedB, afterB.path("last_started_at").asText());
        assertEquals("ready", afterB.path("state").asText());
        assertFalse(TestComputers.sandboxes(a.dataDir.resolve("runsc")).keySet().stream()
                .anyMatch(id -> id.startsWith(onB.path("id").asText())), "a runs nothing of b's");
        assertFalse(Files.exists(a.dataDir.resolve("databases").resolve(db.body().path("database").path("id").asText())));
        assertEquals("ready", TestComputers.run(nodes.b.admin(), onB.path("id").asText(), "echo ready"));

        var listed = nodes.adminNodes();
        System.out.println("hearth admin nodes:\n" + listed); // what README shows an operator
        assertTrue(listed.matches("(?s).*\\ba +up +" + TwoNodes.address(a) + " +[1-9]\\d* +0 .*"), listed);
        assertTrue(listed.matches("(?s).*\\bb +up +" + TwoNodes.address(nodes.b) + " +[1-9]\\d* +1 .*"), listed);
    }

    @Test
    void aStoppedNodesComputersAnswerNodeUnavailableUntilItIsBack() throws Exception {
        var onB = nodes.on("b", () -> TestComputers.create(nodes.b.admin(), ws, "back-b", "hearth/busybox", Map.of()));
        String id = onB.path("id").asText();
        nodes.b.stop();
        assertTrue(nodes.adminNodes().matches("(?s).*\\bb +down .*"), nodes.adminNodes());
        assertError(nodes.a.admin().send("POST", "/computers/" + id + "/exec", Map.of("command", List.of("true")),
                Map.of()), 503, "node_unavailable");
        // Placement passes over a node that is down: a create through a stays on a.
        var meanwhile = TestComputers.create(nodes.a.admin(), ws, "meanwhile", "hearth/busybox", Map.of());
        assertEquals("a", meanwhile.path("node").asText());
        nodes.restartB();
        assertEquals("back", TestComputers.run(nodes.a.admin(), id, "echo back"), "answered by b, through a");
        assertTrue(nodes.adminNodes().matches("(?s).*\\bb +up .*"), nodes.adminNodes());
        nodes.a.admin().delete("/computers/" + meanwhile.path("id").asText());
    }

    /**
     * A third node, c, killed with SIGKILL: its computer answers node_unavailable on a (not a 500,
     * not a hang), and is back untouched, /data and all, when c starts again on its directory.
     */
    @Test
    void aKilledNodesComputersAnswerNodeUnavailableUntilItIsBackUntouched() throws Exception {
        int port = ChildServer.freePort();
        Path dir = TwoNodes.replicaDir(nodes.a.dataDir, port);
        String id;
        for (String other : List.of("a", "b")) {
            assertEquals(0, nodes.cli("admin", "nodes", "drain", other, "--store", nodes.store).code());
        }
        try {
            id = ChildServer.startAndKill(dir, port, "computer", nodes.store, "c");
        } finally {
            for (String other : List.of("a", "b")) {
                assertEquals(0, nodes.cli("admin", "nodes", "undrain", other, "--store", nodes.store).code());
            }
        }
        assertEquals("c", nodes.a.admin().get("/computers/" + id).path("computer").path("node").asText());
        assertError(nodes.a.admin().send("POST", "/computers/" + id + "/exec", Map.of("command", List.of("true")),
                Map.of()), 503, "node_unavailable");
        try (var c = TestServer.startOn(dir, port, nodes.node("c"))) {
            assertEquals("acknowledged", TestComputers.run(nodes.a.admin(), id, "cat /data/f"), "through a, on c");
            nodes.a.admin().delete("/computers/" + id);
        }
    }

    @Test
    void aDrainingNodeTakesNoNewWork() throws Exception {
        assertEquals(0, nodes.cli("admin", "nodes", "drain", "b", "--store", nodes.store).code());
        try {
            // Asked of b, a create goes to a: b takes no new work, whoever asks.
            var placed = nodes.b.admin().send("POST", "/workspaces/" + ws + "/computers",
                    Map.of("name", "drained", "image", "hearth/busybox"), TestComputers.key());
            assertEquals(201, placed.status(), () -> placed.body().toString());
            assertEquals("a", placed.body().path("computer").path("node").asText());
            nodes.b.admin().delete("/computers/" + placed.body().path("computer").path("id").asText());
            assertTrue(nodes.adminNodes().matches("(?s).*\\bb +draining .*"), nodes.adminNodes());
            String scraped = TestMetrics.scrape(nodes.metricsPort);
            assertTrue(scraped.matches("(?s).*\\nhearth_nodes\\{state=\"draining\"} 1(\\.0)?\\n.*"), scraped);
            var listed = new HashMap<String, String>();
            nodes.operatorNodes().path("nodes").forEach(n -> listed.put(n.path("name").asText(),
                    n.path("state").asText()));
            assertEquals("up", listed.get("a"), listed.toString());
            assertEquals("draining", listed.get("b"), listed.toString());
        } finally {
            assertEquals(0, nodes.cli("admin", "nodes", "undrain", "b", "--store", nodes.store).code());
        }
        assertEquals(1, nodes.cli("admin", "nodes", "drain", "nowhere", "--store", nodes.store).code());
    }

    /**
     * Draining b moves its sleeping computer to a: its memory (a loop counting in a shell), /data, its
     * checkpoint and its name all come along, nothing of it stays on b, and every node's API reaches
     * it on a, where a fork of its checkpoint is made.
     */
    @Test
    void drainMovesASleepingComputerWithItsMemoryDataAndCheckpoints() throws Exception {
        var admin = nodes.a.admin();
        String id = nodes.on("b", () -> TestComputers.create(admin, ws, "mover", "hearth/busybox", Map.of()))
                .path("id").asText();
        var started = admin.post("/computers/" + id + "/processes", Map.of("command", List.of("sh", "-c",
                "i=0; while true; do i=$((i+1)); echo $i > /tmp/n.t; mv /tmp/n.t /tmp/n; sleep 0.05; done")));
        int pid = started.path("process").path("pid").asInt();
        TestComputers.run(admin, id, "head -c 2000000 /dev/urandom > /data/blob; sleep 0.3");
        String blob = TestComputers.run(admin, id, "sha256sum /data/blob | cut -d' ' -f1");
        var checkpoint = admin.send("POST", "/computers/" + id + "/checkpoints", Map.of("name", "before-move"),
                TestComputers.key());
        assertEquals(202, checkpoint.status(), () -> checkpoint.body().toString());
        String op = checkpoint.body().path("operations").get(0).asText();
        assertEquals("succeeded", admin.get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
        String counted = TestComputers.run(admin, id, "cat /tmp/n");
        admin.post("/computers/" + id + "/sleep", Map.of());

        assertEquals(0, nodes.cli("admin", "nodes", "drain", "b", "--store", nodes.store).code());
        try {
            String node = Eventually.eventually(Duration.ofMinutes(2),
                    () -> admin.get("/computers/" + id).path("computer").path("node").asText(), n -> !n.equals("b"));
            assertEquals("a", node, "moved off the draining node");
        } finally {
            assertEquals(0, nodes.cli("admin", "nodes", "undrain", "b", "--store", nodes.store).code());
        }
        var moved = nodes.b.admin().get("/computers/" + id).path("computer");
        assertEquals("sleeping", moved.path("state").asText(), moved.toString());
        for (String left : List.of("computers/" + id, "disks/" + id + ".img")) {
            assertFalse(Files.exists(nodes.b.dataDir.resolve(left)), left + " is gone from b");
        }
        // Woken through b's API, relayed to a: the loop counts on from where it stood.
        int after = Integer.parseInt(TestComputers.run(nodes.b.admin(), id, "sleep 0.3; cat /tmp/n"));
        assertTrue(after > Integer.parseInt(counted), counted + " then " + after);
        assertEquals("running", admin.get("/computers/" + id + "/processes/" + pid).path("process").path("state")
                .asText());
        assertEquals(blob, TestComputers.run(admin, id, "sha256sum /data/blob | cut -d' ' -f1"));
        var fork = nodes.b.admin().send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "mover-fork",
                "from_checkpoint", checkpoint.body().path("checkpoint").path("id").asText()), TestComputers.key());
        assertEquals(201, fork.status(), () -> fork.body().toString());
        assertEquals("a", fork.body().path("computer").path("node").asText(), "made where the checkpoint is now");
        String forkId = fork.body().path("computer").path("id").asText();
        assertEquals(blob, TestComputers.run(admin, forkId, "sha256sum /data/blob | cut -d' ' -f1"));
        admin.delete("/computers/" + forkId);
        admin.delete("/computers/" + id);
    }

    @Test
    void aNameAndADataDirectoryServeOneProcessAtATime() throws Exception {
        Path other = Files.createTempDirectory("hearth-test");
        try {
            var twin = assertThrows(IllegalStateException.class, () -> HearthServer.start(bare(other, "a")));
            assertTrue(twin.getMessage().contains("node a is up at " + TwoNodes.address(nodes.a)), twin.getMessage());
            assertFalse(Files.exists(other.resolve("node")), "a refused start leaves the directory free to serve another node");
            var shared = assertThrows(IllegalStateException.class, () -> HearthServer.start(bare(nodes.a.dataDir, "a")));
            assertTrue(shared.getMessage().contains("another hearth serve is using data directory"), shared.getMessage());
            Files.writeString(other.resolve("node"), "x\n");
            var renamed = assertThrows(IllegalStateException.class, () -> HearthServer.start(bare(other, "y")));
            assertTrue(renamed.getMessage().contains("holds node x's"), renamed.getMessage());
        } finally {
            Disk.deleteTree(other);
        }
    }

    /** A server on {@code dir} as node {@code name}, on free ports, that is expected not to start. */
    private Config bare(Path dir, String name) {
        return Config.defaults(dir).withPort(0).withStore(nodes.store)
                .withRouter(new RouterSettings("127.0.0.1", 0, "localhost", Optional.empty()))
                .withNodes(NodeSettings.DEFAULT.withName(name).withLease(TwoNodes.LEASE));
    }
}
