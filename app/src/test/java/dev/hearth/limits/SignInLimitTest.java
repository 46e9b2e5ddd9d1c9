package dev.hearth.limits;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.auth.Assertions;
import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.server.limits.Limits;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Failed sign-ins from one address are cut off, a right one too, until the address has waited. */
@HearthServerTest(config = "fewFailures")
class SignInLimitTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;

    static UnaryOperator<Config> fewFailures() {
        return c -> c.withLimits(Limits.DEFAULT.withAuthFailures(3));
    }

    private HearthClient.Response exchange(String assertion) {
        return server.anonymous().send("POST", "/auth/token", Map.of(
                "grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion", assertion), Map.of());
    }

    @Test
    void guessingIsCutOffPerAddress() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        JsonNode keyFile = admin.create("/workspaces/" + ws + "/access", Map.of("name", "robot", "role", "viewer"))
                .path("key_file");
        for (int i = 0; i < 3; i++) {
            assertError(exchange("not.a.jwt"), 400, "invalid_grant");
        }
        var cutOff = exchange(Assertions.sign(keyFile, c -> { }));
        assertError(cutOff, 429, "rate_limited");
        assertTrue(cutOff.header("Retry-After").isPresent());
        var code = server.anonymous().send("POST", "/auth/email/verify",
                Map.of("email", "nobody@example.com", "code", "000000"), Map.of());
        assertError(code, 429, "rate_limited");
    }
}
