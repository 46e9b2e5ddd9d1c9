package dev.hearth.access;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import dev.hearth.api.ApiException;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@HearthServerTest
class AccessTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeEach
    void freshWorkspace() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    private String access() {
        return "/workspaces/" + ws + "/access";
    }

    private JsonNode grantKey(String name, String role) {
        return admin.create(access(), Map.of("name", name, "role", role));
    }

    @Test
    void grantByEmailCreatesThePrincipalAndTheRole() {
        var granted = admin.create(access(), Map.of("email", "Ada@Example.com", "role", "editor"));
        var a = granted.path("access");
        assertEquals("email", a.path("principal").path("auth").asText());
        assertEquals("ada@example.com", a.path("principal").path("email").asText());
        assertEquals("editor", a.path("role").asText());
        assertTrue(granted.path("key").isNull());
        assertTrue(granted.path("key_file").isNull());
        var ada = server.emailUser("ada@example.com");
        var me = ada.get("/me");
        assertEquals(a.path("principal").path("id").asText(), me.path("principal").path("id").asText());
        assertEquals("editor", me.path("workspaces").get(0).path("role").asText());
        var again = admin.send("POST", access(), Map.of("email", "ada@example.com", "role", "viewer"),
                Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertError(again, 409, "conflict");
    }

    @Test
    void aKeyPrincipalGetsItsKeyFileOnceAndWorks() {
        String idem = UUID.randomUUID().toString();
        var body = Map.of("name", "deployer", "description", "CI deploys", "role", "editor");
        var first = admin.send("POST", access(), body, Map.of("Idempotency-Key", idem));
        assertEquals(201, first.status());
        var keyFile = first.body().path("key_file");
        assertTrue(keyFile.path("private_key").asText().startsWith("-----BEGIN PRIVATE KEY-----"));
        assertEquals(first.body().path("key").path("id").asText(), keyFile.path("key_id").asText());
        assertEquals(server.baseUrl() + "/auth/token", keyFile.path("token_url").asText());
        assertEquals("active", first.body().path("access").path("key_state").asText());
        assertEquals("CI deploys", first.body().path("access").path("description").asText());

        var replay = admin.send("POST", access(), body, Map.of("Idempotency-Key", idem));
        assertEquals(201, replay.status());
        assertTrue(replay.body().path("key_file").isNull(), "a replay never shows the private key again");
        assertEquals(first.body().path("access"), replay.body().path("access"));
        assertTrue(!replay.body().toString().contains("PRIVATE KEY"));

        var deployer = server.keyPrincipal(keyFile);
        assertEquals("deployer", deployer.get("/me").path("principal").path("name").asText());
        assertEquals(ws, deployer.get("/workspaces/" + ws).path("workspace").path("id").asText());
    }

    @Test
    void bringYourOwnKey() throws Exception {
        var mine = new ECKeyGenerator(Curve.P_256).generate();
        String pem = "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder().encodeToString(mine.toECPublicKey().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
        var granted = admin.create(access(), Map.of("name", "byok", "role", "viewer", "public_key", pem));
        assertTrue(granted.path("key").path("byok").asBoolean());
        assertTrue(granted.path("key_file").path("private_key").isNull());
        var keyFile = (ObjectNode) granted.path("key_file").deepCopy();
        keyFile.put("private_key", "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(mine.toECPrivateKey().getEncoded()) + "\n-----END PRIVATE KEY-----\n");
        assertEquals("byok", server.keyPrincipal(keyFile).get("/me").path("principal").path("name").asText());

        var jwkAsText = admin.create(access(), Map.of("name", "byok-jwk", "role", "viewer",
                "public_key", new ECKeyGenerator(Curve.P_256).generate().toPublicJWK().toJSONString()));
        assertTrue(jwkAsText.path("key").path("byok").asBoolean());

        for (String bad : new String[] {"not a key", mine.toJSONString(),
                new RSAKeyGenerator(1024, true).generate().toPublicJWK().toJSONString()}) {
            var r = admin.send("POST", access(), Map.of("name", "bad-key", "role", "viewer", "public_key", bad),
                    Map.of("Idempotency-Key", UUID.randomUUID().toString()));
            assertError(r, 400, "invalid_request");
            assertTrue(r.body().path("error").path("details").path("fields").has("public_key"));
        }
    }

    @Test
    void roleChangesTakeEffectAtOnce() {
        var robot = server.keyPrincipal(grantKey("robot", "viewer").path("key_file"));
        String id = robot.get("/me").path("principal").path("id").asText();
        var attempt = robot.send("PATCH", "/workspaces/" + ws, Map.of("name", TestServer.uniqueName("x")), Map.of());
        assertError(attempt, 403, "forbidden");
        assertEquals("admin", admin.patch(access() + "/" + id, Map.of("role", "admin")).path("access").path("role").asText());
        assertEquals(200, robot.send("PATCH", "/workspaces/" + ws, Map.of("name", TestServer.uniqueName("x")), Map.of()).status());
    }

    @Test
    void revokingAccessEndsItAtOnce() {
        var keyFile = grantKey("leaver", "editor").path("key_file");
        var leaver = server.keyPrincipal(keyFile);
        String id = keyFile.path("principal").asText();
        assertEquals(200, leaver.send("GET", "/workspaces/" + ws, null, Map.of()).status());
        var removed = admin.delete(access() + "/" + id);
        assertEquals(id, removed.path("access").path("principal").path("id").asText());
        assertError(leaver.send("GET", "/workspaces/" + ws, null, Map.of()), 401, "unauthenticated");
        assertError(admin.send("GET", access() + "/" + id, null, Map.of()), 404, "not_found");
    }

    @Test
    void rotatingAKeyRevokesTheOldOne() {
        var keyFile = grantKey("rotator", "editor").path("key_file");
        var oldClient = server.keyPrincipal(keyFile);
        assertEquals(200, oldClient.send("GET", "/me", null, Map.of()).status());
        String id = keyFile.path("principal").asText();
        var rotated = admin.post(access() + "/" + id + "/rotate_key", Map.of());
        assertNotEquals(keyFile.path("key_id"), rotated.path("key_file").path("key_id"));
        assertEquals("active", rotated.path("access").path("key_state").asText());
        assertError(oldClient.send("GET", "/me", null, Map.of()), 401, "unauthenticated");
        var fresh = new KeyFileTokens(keyFile);
        var error = assertThrows(ApiException.class, () -> fresh.token(server.anonymous()));
        assertEquals("invalid_grant", error.code());
        assertEquals(200, server.keyPrincipal(rotated.path("key_file")).send("GET", "/me", null, Map.of()).status());
    }

    @Test
    void revokingAKeyRefusesItsNextRequest() {
        var keyFile = grantKey("revoked", "admin").path("key_file");
        var client = server.keyPrincipal(keyFile);
        assertEquals(200, client.send("GET", "/me", null, Map.of()).status());
        var revoked = admin.post(access() + "/" + keyFile.path("principal").asText() + "/revoke_key", Map.of());
        assertEquals("revoked", revoked.path("access").path("key_state").asText());
        assertTrue(!revoked.path("access").path("key").path("revoked_at").isNull());
        assertError(client.send("GET", "/me", null, Map.of()), 401, "unauthenticated");
    }

    @Test
    void theLastAdminStays() {
        String me = admin.get("/me").path("principal").path("id").asText();
        assertError(admin.send("PATCH", access() + "/" + me, Map.of("role", "editor"), Map.of()), 409, "last_admin");
        assertError(admin.send("DELETE", access() + "/" + me, null, Map.of()), 409, "last_admin");
        grantKey("second-admin", "admin");
        assertEquals("editor", admin.patch(access() + "/" + me, Map.of("role", "editor")).path("access").path("role").asText());
    }

    @Test
    void namesAndDescriptionsOfKeyPrincipals() {
        String id = grantKey("old-name", "viewer").path("access").path("principal").path("id").asText();
        var renamed = admin.patch(access() + "/" + id, Map.of("name", "new-name", "description", "renamed"));
        assertEquals("new-name", renamed.path("access").path("principal").path("name").asText());
        assertEquals("renamed", renamed.path("access").path("description").asText());
        String person = admin.create(access(), Map.of("email", "p@example.com", "role", "viewer"))
                .path("access").path("principal").path("id").asText();
        assertError(admin.send("PATCH", access() + "/" + person, Map.of("name", "x"), Map.of()), 400, "invalid_request");
        assertError(admin.send("POST", access() + "/" + person + "/rotate_key", null, Map.of()), 409, "conflict");
        assertError(admin.send("PATCH", access() + "/" + person, Map.of(), Map.of()), 400, "invalid_request");
    }

    @Test
    void listsAndLookups() {
        grantKey("k-one", "viewer");
        admin.create(access(), Map.of("email", "list@example.com", "role", "editor"));
        var list = admin.get(access());
        assertEquals(3, list.path("access").size());
        assertTrue(list.path("next_cursor").isNull());
        assertError(admin.send("GET", access() + "/00000000000000000000000000z", null, Map.of()), 404, "not_found");
        String otherWs = TestServer.workspace(admin).path("id").asText();
        String elsewhere = admin.create("/workspaces/" + otherWs + "/access", Map.of("name", "elsewhere", "role", "viewer"))
                .path("access").path("principal").path("id").asText();
        assertError(admin.send("GET", access() + "/" + elsewhere, null, Map.of()), 404, "not_found");
    }

    @Test
    void grantInputIsChecked() {
        var cases = new ArrayList<Map<String, Object>>();
        cases.add(Map.of("email", "x@example.com", "role", "owner"));
        cases.add(Map.of("email", "not-an-email", "role", "viewer"));
        cases.add(Map.of("email", "x@example.com", "name", "both", "role", "viewer"));
        cases.add(Map.of("role", "viewer"));
        cases.add(Map.of("email", "x@example.com"));
        cases.add(Map.of("name", "Bad Name", "role", "viewer"));
        var longDescription = new LinkedHashMap<String, Object>(Map.of("name", "long", "role", "viewer"));
        longDescription.put("description", "d".repeat(1001));
        cases.add(longDescription);
        cases.add(Map.of("name", "nul", "role", "viewer", "description", "a\u0000b"));
        cases.add(Map.of("name", "half", "role", "viewer", "description", "a\ud800b"));
        cases.add(Map.of("name", "days", "role", "viewer", "expires_in_days", 0));
        for (var body : cases) {
            var r = admin.send("POST", access(), body, Map.of("Idempotency-Key", UUID.randomUUID().toString()));
            assertError(r, 400, "invalid_request");
        }
    }
}
