package dev.hearth.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.api.ApiException;
import dev.hearth.cli.Cli;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.RawRequest;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * API keys: shown once, kept as a digest, bound to one workspace with at most their maker's role
 * there, accepted as Bearer on /v1 and as X-API-KEY on E2B's routes, refused at once when revoked or
 * expired; and the CLI's api-keys commands.
 */
@HearthServerTest
class ApiKeysTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    @TempDir
    Path config;
    private String ws;
    private String other;

    @BeforeAll
    void workspaces() {
        ws = TestServer.workspace(admin).path("id").asText();
        other = TestServer.workspace(admin).path("id").asText();
    }

    @Test
    void aKeyIsShownOnceAndActsInItsWorkspaceOnlyWithItsRole() {
        var key = TestComputers.key();
        var made = admin.send("POST", "/workspaces/" + ws + "/api_keys", Map.of("name", "ci", "role", "editor"), key);
        assertEquals(201, made.status(), made.body()::toString);
        String secret = made.body().path("secret").asText();
        var apiKey = made.body().path("api_key");
        assertTrue(secret.startsWith("hk_") && secret.length() > 40, secret);
        assertTrue(secret.startsWith(apiKey.path("prefix").asText()), apiKey.toString());
        assertEquals("active", apiKey.path("state").asText());
        assertEquals("editor", apiKey.path("role").asText());
        var replay = admin.send("POST", "/workspaces/" + ws + "/api_keys", Map.of("name", "ci", "role", "editor"), key);
        assertEquals(apiKey.path("id"), replay.body().path("api_key").path("id"));
        assertTrue(replay.body().path("secret").isNull(), "a replay never shows the secret again");
        var listed = admin.get("/workspaces/" + ws + "/api_keys").path("api_keys");
        assertEquals(1, java.util.stream.StreamSupport.stream(listed.spliterator(), false)
                .filter(k -> k.path("name").asText().equals("ci")).count(), listed.toString());
        assertFalse(listed.toString().contains(secret.substring(10)), "no secret in lists");

        assertTrue(secret.matches("hk_[0-9a-f]{64}"), secret);
        assertEquals(ws, server.withToken("e2b_" + secret.substring(3)).get("/workspaces").path("workspaces").get(0)
                .path("id").asText(), "e2b_ and the same digits is the same key, as E2B's SDKs want it");
        var bearer = server.withToken(secret);
        var workspaces = bearer.get("/workspaces").path("workspaces");
        assertEquals(1, workspaces.size(), "only its workspace: " + workspaces);
        assertEquals(ws, workspaces.get(0).path("id").asText());
        bearer.create("/workspaces/" + ws + "/variables", Map.of("name", "from-key", "value", "x"));
        assertEquals(404, assertThrows(ApiException.class,
                () -> bearer.get("/workspaces/" + other + "/variables")).status(), "another workspace does not exist for it");
        assertEquals(403, assertThrows(ApiException.class,
                () -> bearer.create("/workspaces", Map.of("name", "from-a-key"))).status());
        var more = assertThrows(ApiException.class, () -> bearer.create("/workspaces/" + ws + "/api_keys",
                Map.of("name", "another", "role", "viewer")));
        assertEquals(403, more.status(), "keys are made with access tokens: a leaked key cannot make more");
        assertEquals("viewer", admin.create("/workspaces/" + other + "/api_keys", Map.of("name", "ok", "role", "viewer"))
                .path("api_key").path("role").asText(), "a principal with a token may");
        assertFalse(admin.get("/workspaces/" + ws + "/api_keys/" + apiKey.path("id").asText()).path("api_key")
                .path("last_used_at").isNull(), "its use is noted");

        String viewer = admin.create("/workspaces/" + ws + "/api_keys", Map.of("name", "ro", "role", "viewer"))
                .path("secret").asText();
        assertEquals(403, assertThrows(ApiException.class, () -> server.withToken(viewer).create("/workspaces/" + ws
                + "/variables", Map.of("name", "nope", "value", "x"))).status());
    }

    @Test
    void aRevokedKeyIsRefusedAtOnceOnV1AndOnE2bRoutes() throws Exception {
        var made = admin.create("/workspaces/" + ws + "/api_keys", Map.of("name", "short-lived"));
        String secret = made.path("secret").asText();
        String id = made.path("api_key").path("id").asText();
        var bearer = server.withToken(secret);
        bearer.get("/workspaces/" + ws + "/variables");
        var e2b = e2bList(secret);
        assertEquals(200, e2b.status(), String.valueOf(e2b.body()));

        var revoked = admin.delete("/workspaces/" + ws + "/api_keys/" + id).path("api_key");
        assertEquals("revoked", revoked.path("state").asText());
        var refused = assertThrows(ApiException.class, () -> bearer.get("/workspaces/" + ws + "/variables"));
        assertEquals(401, refused.status());
        var after = e2bList(secret);
        assertEquals(401, after.status());
        assertEquals(401, after.body().path("code").asInt(), "E2B's error shape: " + after.body());
        assertEquals(401, assertThrows(ApiException.class, () -> server.withToken("hk_made-up").get("/workspaces"))
                .status());
    }

    @Test
    void aDeletedWorkspacesKeysOpenNothing() {
        String doomed = TestServer.workspace(admin).path("id").asText();
        String secret = admin.create("/workspaces/" + doomed + "/api_keys", Map.of("name", "doomed")).path("secret")
                .asText();
        assertEquals(1, server.withToken(secret).get("/workspaces").path("workspaces").size());
        admin.delete("/workspaces/" + doomed);
        assertEquals(401, assertThrows(ApiException.class, () -> server.withToken(secret).get("/me")).status());
    }

    @Test
    void aKeyExpiresAfterItsDays() {
        String secret = admin.create("/workspaces/" + ws + "/api_keys", Map.of("name", "week", "expires_in_days", 7))
                .path("secret").asText();
        var bearer = server.withToken(secret);
        bearer.get("/workspaces/" + ws + "/variables");
        // The admin's key file signs with the real time, which the moved clock takes for stale: list with a key.
        var lister = server.withToken(admin.create("/workspaces/" + ws + "/api_keys", Map.of("name", "lister"))
                .path("secret").asText());
        server.clock.advance(Duration.ofDays(8));
        try {
            assertEquals(401, assertThrows(ApiException.class, () -> bearer.get("/workspaces/" + ws + "/variables"))
                    .status());
            var listed = lister.get("/workspaces/" + ws + "/api_keys").path("api_keys");
            assertTrue(listed.toString().contains("\"state\":\"expired\""), listed.toString());
        } finally {
            server.clock.reset();
        }
        assertEquals(400, assertThrows(ApiException.class, () -> admin.create("/workspaces/" + ws + "/api_keys",
                Map.of("name", "never", "expires_in_days", 0))).status());
    }

    @Test
    void theCliMakesListsAndRevokesKeys() throws Exception {
        var env = Map.of("HEARTH_URL", server.baseUrl(), "HEARTH_KEY_FILE",
                server.dataDir.resolve("admin-key.json").toString());
        var created = cli(env, "api-keys", "create", "-w", ws, "from-cli", "--role", "viewer");
        assertEquals(0, created[0].length(), created[2]);
        String secret = created[1].strip();
        assertTrue(secret.startsWith("hk_"), secret);
        assertTrue(created[2].contains("shown this once"), created[2]);
        var list = cli(env, "api-keys", "list", "-w", ws);
        assertTrue(list[1].lines().anyMatch(l -> l.contains("from-cli") && l.contains("viewer") && l.contains("active")),
                list[1]);
        String id = list[1].lines().filter(l -> l.contains("from-cli")).findFirst().orElseThrow().split("\\s+")[0];
        var revoked = cli(env, "api-keys", "revoke", "-w", ws, id);
        assertTrue(revoked[1].contains("revoked"), revoked[1]);
        assertEquals(401, assertThrows(ApiException.class, () -> server.withToken(secret).get("/workspaces")).status());
    }

    /** {code-or-empty, out, err}: the first is empty when the command exited 0. */
    private String[] cli(Map<String, String> env, String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int code = Cli.run(args, new Cli.Context(env, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true),
                new PrintStream(err, true), config));
        return new String[] {code == 0 ? "" : String.valueOf(code), out.toString(StandardCharsets.UTF_8),
                err.toString(StandardCharsets.UTF_8)};
    }

    private HearthClient.Response e2bList(String secret) throws Exception {
        int port = java.net.URI.create(server.baseUrl()).getPort();
        return RawRequest.send(port, "GET", "/e2b/v2/sandboxes", Map.of("X-API-KEY", secret), null);
    }
}
