package dev.hearth.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jwt.SignedJWT;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A restart of hearth serve keeps everything that was acknowledged, and tokens keep working. */
class RestartTest {

    @Test
    void workspacesPrincipalsKeysAndSessionsSurviveARestart() throws Exception {
        try (var server = TestServer.start()) {
            assertEquals("rw-------", PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(server.dataDir.resolve("admin-key.json"))));
            var admin = server.admin();
            var ws = TestServer.workspace(admin);
            var keyFile = admin.create("/workspaces/" + ws.path("id").asText() + "/access",
                    Map.of("name", "survivor", "role", "editor")).path("key_file");
            var session = server.emailLogin("stays@example.com");
            String adminToken = new KeyFileTokens(
                    new ObjectMapper().readTree(
                            server.dataDir.resolve("admin-key.json").toFile())).token(server.anonymous()).orElseThrow();

            server.restart();

            assertEquals(ws.path("name").asText(),
                    server.withToken(adminToken).get("/workspaces/" + ws.path("id").asText()).path("workspace").path("name").asText());
            assertEquals("editor", server.keyPrincipal(keyFile).get("/me").path("workspaces").get(0).path("role").asText());
            assertEquals(200, server.withToken(session.path("access_token").asText()).send("GET", "/me", null, Map.of()).status());
            var refreshed = server.anonymous().post("/auth/refresh", Map.of("refresh_token", session.path("refresh_token").asText()));
            assertEquals("stays@example.com", refreshed.path("principal").path("email").asText());
            assertTrue(server.server().adminKeyFile().isEmpty(), "the admin key is made once, on the first start");
        }
    }

    @Test
    void signingKeysRotateWithoutLoggingAnyoneOut() throws Exception {
        try (var server = TestServer.start(c -> c.withSigningKeyRotation(Duration.ofMinutes(5)))) {
            var before = server.emailLogin("rotation@example.com");
            String oldToken = before.path("access_token").asText();
            String oldKid = SignedJWT.parse(oldToken).getHeader().getKeyID();
            server.clock.advance(Duration.ofMinutes(6));
            server.restart();
            var after = server.anonymous().post("/auth/refresh", Map.of("refresh_token", before.path("refresh_token").asText()));
            String newKid = SignedJWT.parse(after.path("access_token").asText()).getHeader().getKeyID();
            assertNotEquals(oldKid, newKid, "a new key signs after the rotation period");
            assertEquals(200, server.withToken(oldToken).send("GET", "/me", null, Map.of()).status(),
                    "tokens signed by the previous key still verify");
            assertEquals(2, server.anonymous().get("/.well-known/jwks.json").path("keys").size());
        }
    }
}
