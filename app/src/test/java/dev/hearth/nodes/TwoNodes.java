package dev.hearth.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.Json;
import dev.hearth.cli.Cli;
import dev.hearth.server.Config;
import dev.hearth.server.nodes.NodeSettings;
import dev.hearth.support.ChildServer;
import dev.hearth.support.PostgresCluster;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Two nodes, a and b, each a real hearth serve with its own data directory, sharing one throwaway
 * PostgreSQL store; a also serves the operator listener.
 */
final class TwoNodes implements AutoCloseable {
    // Short, so that a twin waits little; long enough that a loaded machine's stall of a few seconds
    // (one held node b's renewals ~3 s in CI) does not make a live node look down.
    static final Duration LEASE = Duration.ofSeconds(6);
    final PostgresCluster cluster;
    final String store;
    final int metricsPort;
    private final Optional<Long> memoryMb;
    TestServer a;
    TestServer b;
    final String ws;
    final String wsName;

    private TwoNodes(Optional<Long> memoryMb) throws Exception {
        this.memoryMb = memoryMb;
        cluster = PostgresCluster.start();
        store = cluster.createDatabase("hearth_nodes");
        metricsPort = TestMetrics.freePort();
        a = TestServer.start(c -> node("a").apply(c).withMetricsListen(Optional.of("127.0.0.1:" + metricsPort)));
        int port = ChildServer.freePort();
        b = TestServer.startOn(replicaDir(a.dataDir, port), port, node("b"));
        var workspace = TestServer.workspace(a.admin());
        ws = workspace.path("id").asText();
        wsName = workspace.path("name").asText();
    }

    /** Nodes whose awake computers may be given {@code memoryMb} each, or the host's memory. */
    static TwoNodes start(Optional<Long> memoryMb) throws Exception {
        return new TwoNodes(memoryMb);
    }

    UnaryOperator<Config> node(String name) {
        return c -> c.withStore(store).withNodes(NodeSettings.DEFAULT.withName(name).withLease(LEASE)
                .withMemoryMb(memoryMb));
    }

    void restartB() {
        b = TestServer.startOn(b.dataDir, URI.create(b.baseUrl()).getPort(), node("b"));
    }

    /**
     * A second node's data directory holds what replicas share: the keys, and the admin's key file
     * (for this node's URL: nodes reached at different URLs take tokens made for their own).
     */
    static Path replicaDir(Path first, int port) throws Exception {
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

    /** What {@code create} makes, placed on {@code node}: the other node drains while it runs. */
    <T> T on(String node, Supplier<T> create) throws Exception {
        String other = node.equals("a") ? "b" : "a";
        assertEquals(0, cli("admin", "nodes", "drain", other, "--store", store).code());
        try {
            return create.get();
        } finally {
            assertEquals(0, cli("admin", "nodes", "undrain", other, "--store", store).code());
        }
    }

    /** host:port of a node's computer router, as the nodes table has it. */
    String router(String node) throws Exception {
        for (var n : operatorNodes().path("nodes")) {
            if (n.path("name").asText().equals(node)) {
                return n.path("router_address").asText();
            }
        }
        throw new AssertionError("no node " + node);
    }

    static String address(TestServer server) {
        return server.baseUrl().replaceFirst("^http://", "").replaceFirst("/v1$", "");
    }

    String adminNodes() throws Exception {
        var answer = cli("admin", "nodes", "--store", store);
        assertEquals(0, answer.code(), answer.out());
        return answer.out();
    }

    /** {@code GET /nodes} on the operator listener of node a. */
    JsonNode operatorNodes() throws Exception {
        try (var client = HttpClient.newHttpClient()) {
            return Json.mapper().readTree(client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + metricsPort + "/nodes")).build(), HttpResponse.BodyHandlers.ofString()).body());
        }
    }

    record Answer(int code, String out) {
    }

    Answer cli(String... args) throws Exception {
        var out = new ByteArrayOutputStream();
        int code = Cli.run(args, new Cli.Context(Map.of(), System.in, new PrintStream(out, true), System.err,
                a.dataDir.resolve("cli")));
        return new Answer(code, out.toString());
    }

    @Override
    public void close() throws Exception {
        try (var store = cluster; var first = a; var second = b) {
            // closes b, a, then the store, each whatever the others throw (a close checks answers against the contract)
        }
    }
}
