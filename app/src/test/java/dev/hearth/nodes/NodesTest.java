package dev.hearth.nodes;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.Json;
import dev.hearth.cli.Cli;
import dev.hearth.fs.Disk;
import dev.hearth.server.Config;
import dev.hearth.server.HearthServer;
import dev.hearth.server.nodes.NodeSettings;
import dev.hearth.server.router.RouterSettings;
import dev.hearth.support.ChildServer;
import dev.hearth.support.PostgresCluster;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestMetrics;
import dev.hearth.support.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
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
    // Short, so that a twin waits little; long enough that a loaded machine's stall of a few seconds
    // (one held node b's renewals ~3 s in CI) does not make a live node look down.
    private static final Duration LEASE = Duration.ofSeconds(6);
    private PostgresCluster cluster;
    private String store;
    private TestServer a;
    private TestServer b;
    private String ws;
    private int metricsPort;

    @BeforeAll
    void start() throws Exception {
        cluster = PostgresCluster.start();
        store = cluster.createDatabase("hearth_nodes");
        metricsPort = TestMetrics.freePort();
        a = TestServer.start(c -> node("a").apply(c).withMetricsListen(Optional.of("127.0.0.1:" + metricsPort)));
        int port = ChildServer.freePort();
        b = TestServer.startOn(replicaDir(a.dataDir, port), port, node("b"));
        ws = TestServer.workspace(a.admin()).path("id").asText();
    }

    @AfterAll
    void stop() throws Exception {
        try (var store = cluster; var first = a; var second = b) {
            // closes b, a, then the store, each whatever the others throw (a close checks answers against the contract)
        }
    }

    private UnaryOperator<Config> node(String name) {
        return c -> c.withStore(store).withNodes(NodeSettings.DEFAULT.withName(name).withLease(LEASE));
    }

    /**
     * A second node's data directory holds what replicas share: the keys, and the admin's key file
     * (for this node's URL: nodes reached at different URLs take tokens made for their own).
     */
    private static Path replicaDir(Path first, int port) throws Exception {
        Path dir = Files.createTempDirectory("hearth-test");
        for (String shared : List.of("signing-keys.json", "encryption-keys.json")) {
            Files.copy(first.resolve(shared), dir.resolve(shared));
        }
        var key = (ObjectNode) Json.mapper().readTree(first.resolve("admin-key.json").toFile());
        String url = "http://127.0.0.1:" + port + "/v1";
        key.put("audience", url).put("token_url", url + "/auth/token");
        Files.writeString(dir.resolve("admin-key.json"), key.toString());
        return dir;
    }

    @Test
    void eachNodeRunsAndReconcilesItsOwnComputersAndDatabases() throws Exception {
        var onA = TestComputers.create(a.admin(), ws, "on-a", "hearth/busybox", Map.of());
        var onB = TestComputers.create(b.admin(), ws, "on-b", "hearth/busybox", Map.of());
        assertEquals("a", onA.path("node").asText());
        assertEquals("b", onB.path("node").asText());
        var db = b.admin().send("POST", "/workspaces/" + ws + "/databases", Map.of("name", "db-b"), TestComputers.key());
        assertEquals(201, db.status(), () -> db.body().toString());
        assertEquals("b", db.body().path("database").path("node").asText());
        assertEquals("hello", TestComputers.run(b.admin(), onB.path("id").asText(), "echo hello"));

        // Any node reads any computer; only its own node works on it, and says where it is.
        assertEquals("b", a.admin().get("/computers/" + onB.path("id").asText()).path("computer").path("node").asText());
        var misdirected = a.admin().send("POST", "/computers/" + onB.path("id").asText() + "/exec",
                Map.of("command", List.of("true")), Map.of());
        assertError(misdirected, 421, "wrong_node");
        assertEquals(address(b), misdirected.body().path("error").path("details").path("address").asText());
        assertError(a.admin().send("POST", "/databases/db-b/reset_credentials?workspace=" + ws, Map.of(),
                TestComputers.key()), 421, "wrong_node");

        // A restart of a adopts its own and leaves b's alone: b's computer was not started on a.
        String startedB = onB.path("last_started_at").asText();
        a.restart();
        assertEquals("hello", TestComputers.run(a.admin(), onA.path("id").asText(), "echo hello"));
        var afterB = b.admin().get("/computers/" + onB.path("id").asText()).path("computer");
        assertEquals(startedB, afterB.path("last_started_at").asText());
        assertEquals("ready", afterB.path("state").asText());
        assertFalse(TestComputers.sandboxes(a.dataDir.resolve("runsc")).keySet().stream()
                .anyMatch(id -> id.startsWith(onB.path("id").asText())), "a runs nothing of b's");
        assertFalse(Files.exists(a.dataDir.resolve("databases").resolve(db.body().path("database").path("id").asText())));
        assertEquals("ready", TestComputers.run(b.admin(), onB.path("id").asText(), "echo ready"));

        var nodes = adminNodes();
        System.out.println("hearth admin nodes:\n" + nodes); // what README shows an operator
        assertTrue(nodes.matches("(?s).*\\ba +up +" + address(a) + " +[1-9]\\d* +0 .*"), nodes);
        assertTrue(nodes.matches("(?s).*\\bb +up +" + address(b) + " +[1-9]\\d* +1 .*"), nodes);
    }

    @Test
    void aStoppedNodesComputersAnswerNodeUnavailableUntilItIsBack() throws Exception {
        var onB = TestComputers.create(b.admin(), ws, "back-b", "hearth/busybox", Map.of());
        String id = onB.path("id").asText();
        b.stop();
        assertTrue(adminNodes().matches("(?s).*\\bb +down .*"), adminNodes());
        assertError(a.admin().send("POST", "/computers/" + id + "/exec", Map.of("command", List.of("true")), Map.of()),
                503, "node_unavailable");
        b = TestServer.startOn(b.dataDir, URI.create(b.baseUrl()).getPort(), node("b"));
        assertEquals("back", TestComputers.run(b.admin(), id, "echo back"));
        assertTrue(adminNodes().matches("(?s).*\\bb +up .*"), adminNodes());
    }

    @Test
    void aDrainingNodeTakesNoNewWork() throws Exception {
        assertEquals(0, cli("admin", "nodes", "drain", "b", "--store", store).code());
        try {
            var refused = b.admin().send("POST", "/workspaces/" + ws + "/computers",
                    Map.of("name", "drained", "image", "hearth/busybox"), TestComputers.key());
            assertError(refused, 503, "node_unavailable");
            assertTrue(adminNodes().matches("(?s).*\\bb +draining .*"), adminNodes());
            String scraped = TestMetrics.scrape(metricsPort);
            assertTrue(scraped.matches("(?s).*\\nhearth_nodes\\{state=\"draining\"} 1(\\.0)?\\n.*"), scraped);
            var listed = new HashMap<String, String>();
            operatorNodes().path("nodes").forEach(n -> listed.put(n.path("name").asText(), n.path("state").asText()));
            assertEquals(Map.of("a", "up", "b", "draining"), listed);
        } finally {
            assertEquals(0, cli("admin", "nodes", "undrain", "b", "--store", store).code());
        }
        TestComputers.create(b.admin(), ws, "undrained", "hearth/busybox", Map.of());
        assertEquals(1, cli("admin", "nodes", "drain", "nowhere", "--store", store).code());
    }

    /** {@code GET /nodes} on the operator listener of node a. */
    private JsonNode operatorNodes() throws Exception {
        try (var client = HttpClient.newHttpClient()) {
            return Json.mapper().readTree(client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + metricsPort + "/nodes")).build(), HttpResponse.BodyHandlers.ofString()).body());
        }
    }

    @Test
    void aNameAndADataDirectoryServeOneProcessAtATime() throws Exception {
        Path other = Files.createTempDirectory("hearth-test");
        try {
            var twin = assertThrows(IllegalStateException.class, () -> HearthServer.start(bare(other, "a")));
            assertTrue(twin.getMessage().contains("node a is up at " + address(a)), twin.getMessage());
            assertFalse(Files.exists(other.resolve("node")), "a refused start leaves the directory free to serve another node");
            var shared = assertThrows(IllegalStateException.class, () -> HearthServer.start(bare(a.dataDir, "a")));
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
        return Config.defaults(dir).withPort(0).withStore(store)
                .withRouter(new RouterSettings("127.0.0.1", 0, "localhost", Optional.empty()))
                .withNodes(NodeSettings.DEFAULT.withName(name).withLease(LEASE));
    }

    private static String address(TestServer server) {
        return server.baseUrl().replaceFirst("^http://", "").replaceFirst("/v1$", "");
    }

    private String adminNodes() throws Exception {
        var answer = cli("admin", "nodes", "--store", store);
        assertEquals(0, answer.code(), answer.out());
        return answer.out();
    }

    private record Answer(int code, String out) {
    }

    private Answer cli(String... args) throws Exception {
        var out = new ByteArrayOutputStream();
        int code = Cli.run(args, new Cli.Context(Map.of(), System.in, new PrintStream(out, true), System.err,
                a.dataDir.resolve("cli")));
        return new Answer(code, out.toString());
    }
}
