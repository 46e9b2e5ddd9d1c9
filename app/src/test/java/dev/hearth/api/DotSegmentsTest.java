package dev.hearth.api;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.cli.Cli;
import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.RawRequest;
import dev.hearth.support.TestMetrics;
import dev.hearth.support.TestServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A path with {@code .} or {@code ..} segments never reaches the resource above the one it names:
 * every listener refuses it with 400 before routing, whatever the verb and however it is encoded,
 * and the CLI refuses such an argument before it sends anything.
 */
@HearthServerTest(computers = true, databases = true, config = "withMetrics")
class DotSegmentsTest {
    private static final List<String> METHODS = List.of("GET", "DELETE", "PATCH", "POST", "PUT");
    private static final List<String> PARENTS = List.of("..", "%2e%2e", "%2E%2e", ".%2e", "%2e.", "%2E%2E");
    private static final List<String> SELVES = List.of(".", "%2e", "%2E");

    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private int metricsPort;
    private String ws;
    private String empty;
    private String computer;
    private String database;
    private String computerUrl;

    UnaryOperator<Config> withMetrics() throws Exception {
        metricsPort = TestMetrics.freePort();
        return c -> c.withMetricsListen(Optional.of("127.0.0.1:" + metricsPort));
    }

    @BeforeAll
    void resources() {
        ws = TestServer.workspace(admin).path("id").asText();
        empty = admin.create("/workspaces", Map.of("name", TestServer.uniqueName("empty"))).path("workspace")
                .path("id").asText();
        var box = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "box", "image", "hearth/busybox",
                "ports", List.of(Map.of("target", 8080)))).path("computer");
        computer = box.path("id").asText();
        computerUrl = box.path("url").asText();
        database = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "db")).path("database")
                .path("id").asText();
    }

    private int apiPort() {
        return URI.create(server.baseUrl()).getPort();
    }

    private void refused(int port, String method, String path, Map<String, String> headers) throws Exception {
        var answer = RawRequest.send(port, method, path, headers, method.equals("GET") || method.equals("DELETE")
                ? null : "{}");
        assertError(answer, 400, "invalid_request");
    }

    private void refused(String method, String path) throws Exception {
        refused(apiPort(), method, path, Map.of("Authorization", "Bearer " + server.adminToken(),
                "Idempotency-Key", TestServer.uniqueName("k")));
    }

    @Test
    void dotSegmentsAreRefusedOnEveryVerbAndNothingAboveThemIsTouched() throws Exception {
        for (String dots : PARENTS) {
            for (String method : METHODS) {
                refused(method, "/v1/computers/" + computer + "/checkpoints/" + dots);
                refused(method, "/v1/databases/" + database + "/checkpoints/" + dots);
                refused(method, "/v1/workspaces/" + empty + "/images/" + dots);
                refused(method, "/v1/computers/" + computer + "/processes/" + dots);
                refused(method, "/v1/computers/" + computer + "/checkpoints/" + dots + "/sleep");
                refused(method, "/v1/variables/" + dots + "?workspace=" + ws);
            }
        }
        for (String dot : SELVES) {
            for (String method : METHODS) {
                refused(method, "/v1/workspaces/" + dot);
                refused(method, "/v1/workspaces/" + empty + "/" + dot);
                refused(method, "/v1/computers/" + computer + "/" + dot);
                refused(method, "/v1/databases/" + database + "/" + dot + "/");
            }
        }
        assertEquals("ready", admin.get("/computers/" + computer).path("computer").path("state").asText());
        assertTrue(admin.get("/computers/" + computer).path("computer").path("deleted_at").isNull());
        assertTrue(admin.get("/databases/" + database).path("database").path("deleted_at").isNull());
        assertTrue(admin.get("/workspaces/" + empty).path("workspace").path("deleted_at").isNull());
    }

    @Test
    void anEmptySegmentIsRefusedOnTheApiAndATrailingSlashIsNot() throws Exception {
        refused("GET", "/v1/computers//checkpoints");
        refused("DELETE", "/v1/workspaces/" + empty + "//images");
        var trailing = RawRequest.send(apiPort(), "GET", "/v1/computers/" + computer + "/",
                Map.of("Authorization", "Bearer " + server.adminToken()), null);
        assertEquals(200, trailing.status(), trailing.body().toString());
    }

    @Test
    void theRouterAndTheOperatorListenerRefuseThemToo() throws Exception {
        var url = URI.create(computerUrl);
        for (String dots : PARENTS) {
            refused(url.getPort(), "GET", "/files/" + dots + "/secret", Map.of("Host", url.getHost() + ":" + url.getPort()));
            refused(metricsPort, "GET", "/x/" + dots + "/metrics", Map.of());
        }
        var metrics = RawRequest.send(metricsPort, "GET", "/metrics", Map.of(), null);
        assertEquals(200, metrics.status());
    }

    @Test
    void theCliRefusesADotAsANameOrIdAndTheComputerLivesOn(@TempDir Path config) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        var env = Map.of("HEARTH_URL", server.baseUrl(),
                "HEARTH_KEY_FILE", server.dataDir.resolve("admin-key.json").toString());
        for (String dots : List.of("..", ".")) {
            int code = Cli.run(new String[] {"checkpoints", "delete", "box", dots, "-w", ws},
                    new Cli.Context(env, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true),
                            new PrintStream(err, true), config));
            assertNotEquals(0, code);
            String said = err.toString(StandardCharsets.UTF_8);
            assertTrue(said.contains("'" + dots + "' is not a name or an id"), said);
            assertFalse(said.contains("Exception"), said);
        }
        assertTrue(admin.get("/computers/" + computer).path("computer").path("deleted_at").isNull());
    }
}
