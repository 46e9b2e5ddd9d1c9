package dev.hearth.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.cli.Cli;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's operator: the admin principal made at first start sees the cluster's nodes through
 * /v1; a workspace's admin does not, and neither does an API key, whoever made it.
 */
@HearthServerTest
class OperatorTest {
    @Injected
    private TestServer server;

    @Test
    void theAdminMadeAtFirstStartSeesTheNodes() {
        var operator = server.admin();
        assertTrue(operator.get("/me").path("operator").asBoolean());
        var nodes = operator.get("/nodes").path("nodes");
        assertEquals(1, nodes.size(), nodes.toString());
        var node = nodes.get(0);
        assertEquals("local", node.path("name").asText());
        assertEquals("up", node.path("state").asText());
        assertTrue(node.path("capacity").path("cpus").asInt() >= 1, node.toString());
        assertTrue(node.path("lease_until").isTextual() && node.path("hosted").has("computers"), node.toString());
    }

    @Test
    void theCliListsTheNodesForTheOperator(@TempDir Path config) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        var env = Map.of("HEARTH_URL", server.baseUrl(), "HEARTH_KEY_FILE",
                server.dataDir.resolve("admin-key.json").toString());
        int code = Cli.run(new String[] {"nodes"}, new Cli.Context(env, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true), new PrintStream(err, true), config));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        var lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertTrue(lines.get(0).startsWith("NAME") && lines.get(1).startsWith("local") && lines.get(1).contains(" up "),
                lines.toString());
    }

    @Test
    void aWorkspaceAdminIsNotTheOperator() {
        var person = server.emailUser("owner@example.com");
        TestServer.workspace(person);
        assertFalse(person.get("/me").path("operator").asBoolean());
        var refused = person.send("GET", "/nodes", null, Map.of());
        assertEquals(403, refused.status(), refused.body()::toString);
        assertEquals("forbidden", refused.body().path("error").path("code").asText());
        assertTrue(refused.body().path("error").path("message").asText().contains("operator"), refused.body()::toString);
    }

    @Test
    void anApiKeyTheOperatorMadeActsInItsWorkspaceOnly() {
        var operator = server.admin();
        String ws = TestServer.workspace(operator).path("id").asText();
        String secret = operator.create("/workspaces/" + ws + "/api_keys", Map.of("name", "ops", "role", "admin"))
                .path("secret").asText();
        var key = server.withToken(secret);
        assertFalse(key.get("/me").path("operator").asBoolean());
        assertEquals(403, key.send("GET", "/nodes", null, Map.of()).status());
    }
}
