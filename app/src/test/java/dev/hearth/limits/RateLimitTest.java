package dev.hearth.limits;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.server.limits.Limits;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.util.ArrayList;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Each principal has its own request rate; /health has none; one invitation is mailed only so often. */
@HearthServerTest(config = "lowRates")
class RateLimitTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;

    static UnaryOperator<Config> lowRates() {
        return c -> c.withLimits(Limits.DEFAULT.withRequests(5, 10));
    }

    /** Waits until a burst is available again (10 requests at 5 a second). */
    private static void refilled() throws InterruptedException {
        Thread.sleep(2100);
    }

    @Test
    void aPrincipalThatFloodsIsSlowedDownAloneWithRetryAfter() throws Exception {
        var other = server.emailUser("patient@example.com");
        refilled();
        var answers = new ArrayList<HearthClient.Response>();
        for (int i = 0; i < 30; i++) {
            answers.add(admin.send("GET", "/me", null, Map.of()));
        }
        var limited = answers.stream().filter(r -> r.status() == 429).toList();
        assertTrue(limited.size() >= 15, "at most the burst and what refilled got through: " + limited.size());
        assertError(limited.get(0), 429, "rate_limited");
        long retryAfter = Long.parseLong(limited.get(0).header("Retry-After").orElseThrow());
        assertTrue(retryAfter >= 1 && retryAfter <= 2, "retry after " + retryAfter);
        assertEquals(200, other.send("GET", "/me", null, Map.of()).status(), "another principal is not slowed");
        for (int i = 0; i < 40; i++) {
            assertEquals(200, server.anonymous().send("GET", "/health", null, Map.of()).status());
        }
        Thread.sleep(retryAfter * 1000);
        assertEquals(200, admin.send("GET", "/me", null, Map.of()).status(), "after Retry-After it works again");
    }

    @Test
    void oneInvitationIsMailedAgainOnlySoOften() throws Exception {
        refilled();
        String ws = TestServer.workspace(admin).path("id").asText();
        String invitation = admin.create("/workspaces/" + ws + "/invitations",
                Map.of("email", "often@example.com", "role", "viewer")).path("invitation").path("id").asText();
        for (int i = 0; i < 3; i++) {
            assertEquals(200, admin.send("POST", "/invitations/" + invitation + "/resend", null, Map.of()).status());
        }
        var fourth = admin.send("POST", "/invitations/" + invitation + "/resend", null, Map.of());
        assertError(fourth, 429, "rate_limited");
        assertTrue(fourth.header("Retry-After").isPresent());
        String another = admin.create("/workspaces/" + ws + "/invitations",
                Map.of("email", "other@example.com", "role", "viewer")).path("invitation").path("id").asText();
        assertEquals(200, admin.send("POST", "/invitations/" + another + "/resend", null, Map.of()).status());
    }
}
