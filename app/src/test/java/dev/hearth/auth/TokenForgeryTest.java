package dev.hearth.auth;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The token route and access-token checks against honest and forged input. */
@HearthServerTest
class TokenForgeryTest {
    @Injected
    private TestServer server;
    private JsonNode keyFile;
    private String workspace;

    @BeforeAll
    void start(HearthClient admin) {
        workspace = TestServer.workspace(admin).path("id").asText();
        keyFile = admin.create("/workspaces/" + workspace + "/access", Map.of("name", "robot", "role", "editor"))
                .path("key_file");
    }

    private HearthClient.Response exchange(String assertion) {
        return server.anonymous().send("POST", "/auth/token", Map.of(
                "grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion", assertion), Map.of());
    }

    private void refused(String assertion) {
        assertError(exchange(assertion), 400, "invalid_grant");
    }

    @Test
    void anHonestAssertionGetsAnAccessToken() throws Exception {
        var r = exchange(Assertions.sign(keyFile, c -> { }));
        assertEquals(200, r.status(), () -> r.body().toString());
        assertEquals("Bearer", r.body().path("token_type").asText());
        assertEquals(900, r.body().path("expires_in").asLong());
        var me = server.withToken(r.body().path("access_token").asText()).get("/me");
        assertEquals(keyFile.path("principal").asText(), me.path("principal").path("id").asText());
    }

    @Test
    void theFormEncodingOfRfc7523IsAccepted() throws Exception {
        String form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="
                + Assertions.sign(keyFile, c -> { });
        var r = server.anonymous().send("POST", "/auth/token", form,
                Map.of("Content-Type", "application/x-www-form-urlencoded"));
        assertEquals(200, r.status(), () -> r.body().toString());
    }

    @Test
    void wrongAudienceIssuerOrSubject() throws Exception {
        refused(Assertions.sign(keyFile, c -> c.audience("https://elsewhere.example/v1")));
        refused(Assertions.sign(keyFile, c -> c.subject("00000000000000000000000000a")));
        refused(Assertions.sign(keyFile, c -> c.issuer("someone-else")));
    }

    @Test
    void expiredMissingOrFarFutureExpiry() throws Exception {
        refused(Assertions.sign(keyFile, c -> c.expirationTime(Date.from(Instant.now().minusSeconds(300)))));
        refused(Assertions.sign(keyFile, c -> c.expirationTime(Date.from(Instant.now().plus(Duration.ofHours(2))))));
        refused(Assertions.sign(keyFile, c -> c.expirationTime(null)));
        refused(Assertions.sign(keyFile, c -> c.notBeforeTime(Date.from(Instant.now().plusSeconds(600)))));
    }

    @Test
    void aJtiWorksOnce() throws Exception {
        String assertion = Assertions.sign(keyFile, c -> c.jwtID("once-only"));
        assertEquals(200, exchange(assertion).status());
        refused(assertion);
        refused(Assertions.sign(keyFile, c -> c.jwtID("once-only")));
        refused(Assertions.sign(keyFile, c -> c.jwtID(null)));
    }

    @Test
    void unknownKeyBadSignatureNoneAndHmacConfusion() throws Exception {
        var claims = Assertions.claims(keyFile).build();
        String kid = keyFile.path("key_id").asText();
        refused(Assertions.signedByStranger("00000000000000000000000000k", claims));
        refused(Assertions.signedByStranger(kid, claims));
        refused(Assertions.unsigned(kid, claims));
        // The classic confusion: HMAC keyed with the public key the server holds for this principal.
        var publicJwk = server.admin().get("/workspaces/" + workspace + "/access/" + keyFile.path("principal").asText());
        refused(Assertions.hmacWith(publicJwk.toString().getBytes(StandardCharsets.UTF_8), kid, claims));
        refused("not.a.jwt");
    }

    @Test
    void unsupportedGrantTypes() {
        assertError(server.anonymous().send("POST", "/auth/token",
                Map.of("grant_type", "password", "assertion", "x"), Map.of()), 400, "unsupported_grant_type");
        assertError(server.anonymous().send("POST", "/auth/token", Map.of(), Map.of()), 400, "invalid_request");
    }

    @Test
    void forgedAccessTokensAreRefused() throws Exception {
        String good = exchange(Assertions.sign(keyFile, c -> { })).body().path("access_token").asText();
        var jwt = SignedJWT.parse(good);
        String kid = jwt.getHeader().getKeyID();
        var tampered = new JWTClaimsSet.Builder(jwt.getJWTClaimsSet()).subject("00000000000000000000000000x").build();
        String[] parts = good.split("\\.");
        String swappedPayload = parts[0] + "." + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(tampered.toString().getBytes()) + "." + parts[2];
        for (String forged : new String[] {
                Assertions.unsigned(kid, jwt.getJWTClaimsSet()),
                Assertions.signedByStranger(kid, jwt.getJWTClaimsSet()),
                Assertions.hmacWith(server.anonymous().get("/.well-known/jwks.json").toString().getBytes(), kid,
                        jwt.getJWTClaimsSet()),
                swappedPayload}) {
            assertError(server.withToken(forged).send("GET", "/me", null, Map.of()), 401, "unauthenticated");
        }
    }

    @Test
    void accessTokensExpire() throws Exception {
        String token = exchange(Assertions.sign(keyFile, c -> { })).body().path("access_token").asText();
        assertEquals(200, server.withToken(token).send("GET", "/me", null, Map.of()).status());
        server.clock.advance(Duration.ofMinutes(16));
        try {
            assertError(server.withToken(token).send("GET", "/me", null, Map.of()), 401, "unauthenticated");
        } finally {
            server.clock.reset();
        }
    }

    @Test
    void tokensOfAnotherServerAreRefused() throws Exception {
        try (var other = TestServer.start()) {
            String foreign = other.admin().get("/me") == null ? null
                    : ((KeyFileTokens) KeyFileTokens.read(
                    other.dataDir.resolve("admin-key.json"))).token(other.anonymous()).orElseThrow();
            assertError(server.withToken(foreign).send("GET", "/me", null, Map.of()), 401, "unauthenticated");
        }
    }

    @Test
    void theJwksVerifiesIssuedTokens() throws Exception {
        String token = exchange(Assertions.sign(keyFile, c -> { })).body().path("access_token").asText();
        var jwks = JWKSet.parse(server.anonymous().get("/.well-known/jwks.json").toString());
        var jwt = SignedJWT.parse(token);
        assertEquals(JWSAlgorithm.ES256, jwt.getHeader().getAlgorithm());
        var key = jwks.getKeyByKeyId(jwt.getHeader().getKeyID()).toECKey();
        assertTrue(!key.isPrivate(), "the JWKS publishes public keys only");
        assertTrue(jwt.verify(new ECDSAVerifier(key)));
    }
}
