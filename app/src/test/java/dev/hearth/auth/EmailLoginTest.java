package dev.hearth.auth;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetup;
import dev.hearth.client.HearthClient;
import dev.hearth.server.mail.SmtpSettings;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

@HearthServerTest
class EmailLoginTest {
    @Injected
    private TestServer server;

    private HearthClient.Response verify(String email, String code) {
        return server.anonymous().send("POST", "/auth/email/verify", Map.of("email", email, "code", code), Map.of());
    }

    @Test
    void withoutSmtpTheCodeLandsInTheOutbox() throws Exception {
        var started = server.anonymous().post("/auth/email/start", Map.of("email", "outbox@example.com"));
        assertEquals("outbox@example.com", started.path("email").asText());
        try (var files = Files.list(server.dataDir.resolve("outbox"))) {
            var mail = files.filter(f -> {
                try {
                    return Files.readString(f).startsWith("To: outbox@example.com");
                } catch (IOException e) {
                    return false;
                }
            }).findFirst().orElseThrow();
            assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
                    Files.getPosixFilePermissions(mail));
        }
        var tokens = verify("outbox@example.com", server.lastCode("outbox@example.com"));
        assertEquals(200, tokens.status());
        assertTrue(tokens.body().path("refresh_token").asText().startsWith("hrt_"));
        var me = server.withToken(tokens.body().path("access_token").asText()).get("/me");
        assertEquals("email", me.path("principal").path("auth").asText());
    }

    @Test
    void aCodeWorksOnceAndOnlyForItsAddress() {
        server.anonymous().post("/auth/email/start", Map.of("email", "once@example.com"));
        String code = server.lastCode("once@example.com");
        assertError(verify("other@example.com", code), 400, "invalid_code");
        assertEquals(200, verify("once@example.com", code).status());
        assertError(verify("once@example.com", code), 400, "invalid_code");
    }

    @Test
    void wrongCodesUseUpTheAttempts() {
        server.anonymous().post("/auth/email/start", Map.of("email", "guess@example.com"));
        String code = server.lastCode("guess@example.com");
        String wrong = code.equals("000000") ? "111111" : "000000";
        for (int i = 4; i >= 0; i--) {
            var r = verify("guess@example.com", wrong);
            assertError(r, 400, "invalid_code");
            assertTrue(r.body().path("error").path("message").asText().contains(i + " attempt"));
        }
        assertError(verify("guess@example.com", code), 400, "invalid_code");
    }

    @Test
    void codesExpireAfterTenMinutes() {
        server.anonymous().post("/auth/email/start", Map.of("email", "late@example.com"));
        String code = server.lastCode("late@example.com");
        server.clock.advance(Duration.ofMinutes(11));
        try {
            assertError(verify("late@example.com", code), 400, "invalid_code");
        } finally {
            server.clock.reset();
        }
    }

    @Test
    void refreshRotatesAndReuseEndsTheSession() {
        var first = server.emailLogin("rotate@example.com");
        String r1 = first.path("refresh_token").asText();
        var second = server.anonymous().post("/auth/refresh", Map.of("refresh_token", r1));
        String r2 = second.path("refresh_token").asText();
        assertNotEquals(r1, r2);
        String access2 = second.path("access_token").asText();
        assertEquals(200, server.withToken(access2).send("GET", "/me", null, Map.of()).status());

        var reuse = server.anonymous().send("POST", "/auth/refresh", Map.of("refresh_token", r1), Map.of());
        assertError(reuse, 401, "unauthenticated");
        assertError(server.withToken(access2).send("GET", "/me", null, Map.of()), 401, "unauthenticated");
        assertError(server.anonymous().send("POST", "/auth/refresh", Map.of("refresh_token", r2), Map.of()),
                401, "unauthenticated");
    }

    @Test
    void logoutEndsTheSession() {
        var tokens = server.emailLogin("bye@example.com");
        server.anonymous().post("/auth/logout", Map.of("refresh_token", tokens.path("refresh_token").asText()));
        assertError(server.withToken(tokens.path("access_token").asText()).send("GET", "/me", null, Map.of()),
                401, "unauthenticated");
    }

    @Test
    void codeRequestsAreRateLimitedAndChecked() {
        for (int i = 0; i < 5; i++) {
            server.anonymous().post("/auth/email/start", Map.of("email", "spam@example.com"));
        }
        assertError(server.anonymous().send("POST", "/auth/email/start", Map.of("email", "spam@example.com"), Map.of()),
                429, "rate_limited");
        assertError(server.anonymous().send("POST", "/auth/email/start", Map.of("email", "nope"), Map.of()),
                400, "invalid_request");
    }

    @Test
    void withSmtpTheCodeIsMailedForReal() throws Exception {
        var smtp = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        smtp.start();
        int port = smtp.getSmtp().getPort();
        try (var mailing = TestServer.start(c -> c.withSmtp(
                new SmtpSettings("127.0.0.1", port, "none", null, null, "hearth@example.com")))) {
            mailing.anonymous().post("/auth/email/start", Map.of("email", "real@example.com"));
            var received = smtp.getReceivedMessages();
            assertEquals(1, received.length);
            assertEquals("real@example.com", received[0].getAllRecipients()[0].toString());
            var m = Pattern.compile("code is (\\d{6})").matcher(GreenMailUtil.getBody(received[0]));
            assertTrue(m.find());
            assertEquals(200, mailing.anonymous().send("POST", "/auth/email/verify",
                    Map.of("email", "real@example.com", "code", m.group(1)), Map.of()).status());
            smtp.stop();
            assertError(mailing.anonymous().send("POST", "/auth/email/start", Map.of("email", "down@example.com"),
                    Map.of()), 503, "mail_unavailable");
        } finally {
            smtp.stop();
        }
    }
}
