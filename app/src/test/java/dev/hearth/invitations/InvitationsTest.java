package dev.hearth.invitations;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetup;
import dev.hearth.client.HearthClient;
import dev.hearth.server.mail.SmtpSettings;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@HearthServerTest
class InvitationsTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeEach
    void workspace() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    private JsonNode invite(String email, String role) {
        return admin.create("/workspaces/" + ws + "/invitations", Map.of("email", email, "role", role)).path("invitation");
    }

    private HearthClient.Response accept(HearthClient client, String id) {
        return client.send("POST", "/invitations/" + id + "/accept", null, Map.of());
    }

    @Test
    void anInviteeWhoNeverSignedInAcceptsAndHoldsTheRole() throws Exception {
        var invitation = invite("New.Person@Example.com", "editor");
        assertEquals("new.person@example.com", invitation.path("email").asText());
        assertEquals("pending", invitation.path("state").asText());
        assertTrue(invitation.path("email_sent").asBoolean());
        assertFalse(invitation.path("last_sent_at").isNull());
        assertEquals(admin.get("/me").path("principal").path("id").asText(), invitation.path("invited_by").asText());
        assertTrue(Instant.parse(invitation.path("expires_at").asText()).isAfter(Instant.now().plus(Duration.ofDays(6))));
        assertTrue(outboxMentions("new.person@example.com", invitation.path("id").asText()));

        var person = server.emailUser("new.person@example.com");
        assertError(person.send("GET", "/workspaces/" + ws, null, Map.of()), 404, "not_found");
        var accepted = accept(person, invitation.path("id").asText());
        assertEquals(200, accepted.status(), accepted.body().toString());
        assertEquals("accepted", accepted.body().path("invitation").path("state").asText());
        assertEquals(person.get("/me").path("principal").path("id").asText(),
                accepted.body().path("invitation").path("accepted_by").asText());
        assertEquals(200, person.send("GET", "/workspaces/" + ws, null, Map.of()).status());
        assertEquals("editor", person.get("/me").path("workspaces").get(0).path("role").asText());
        assertEquals(200, accept(person, invitation.path("id").asText()).status(), "accepting twice is harmless");
    }

    @Test
    void onlyTheInviteeMayAccept() {
        var invitation = invite("invitee@example.com", "viewer");
        assertError(accept(server.emailUser("someone-else@example.com"), invitation.path("id").asText()), 404, "not_found");
        assertError(accept(admin, invitation.path("id").asText()), 404, "not_found");
    }

    @Test
    void oneOpenInvitationPerAddress() {
        invite("twice@example.com", "viewer");
        var again = admin.send("POST", "/workspaces/" + ws + "/invitations", Map.of("email", "TWICE@example.com", "role", "editor"),
                Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertError(again, 409, "conflict");
    }

    @Test
    void expiredInvitationsCannotBeAcceptedAndListSeparately() {
        var old = invite("slow@example.com", "viewer");
        admin.create("/workspaces/" + ws + "/access", Map.of("email", "admin2@example.com", "role", "admin"));
        server.clock.advance(Duration.ofDays(8));
        try {
            var slow = server.emailUser("slow@example.com");
            var refused = accept(slow, old.path("id").asText());
            assertError(refused, 409, "conflict");
            assertEquals("expired", refused.body().path("error").path("details").path("state").asText());
            var admin2 = server.emailUser("admin2@example.com");
            assertEquals(0, admin2.get("/workspaces/" + ws + "/invitations").path("invitations").size());
            var expired = admin2.get("/workspaces/" + ws + "/invitations?state=expired").path("invitations");
            assertEquals(1, expired.size());
            assertEquals("expired", expired.get(0).path("state").asText());
            var fresh = admin2.create("/workspaces/" + ws + "/invitations", Map.of("email", "slow@example.com", "role", "viewer"));
            assertEquals("pending", fresh.path("invitation").path("state").asText());
            assertEquals(2, admin2.get("/workspaces/" + ws + "/invitations?state=all").path("invitations").size());
            assertEquals(200, accept(slow, fresh.path("invitation").path("id").asText()).status());
        } finally {
            server.clock.reset();
        }
    }

    @Test
    void revokedInvitationsCannotBeAccepted() {
        var invitation = invite("revoked@example.com", "viewer");
        var revoked = admin.delete("/invitations/" + invitation.path("id").asText()).path("invitation");
        assertEquals("revoked", revoked.path("state").asText());
        assertError(accept(server.emailUser("revoked@example.com"), invitation.path("id").asText()), 409, "conflict");
        assertEquals(0, admin.get("/workspaces/" + ws + "/invitations").path("invitations").size());
    }

    @Test
    void resendSetsANewExpiryAndMailsAgain() throws Exception {
        var invitation = invite("resend@example.com", "viewer");
        admin.create("/workspaces/" + ws + "/access", Map.of("email", "admin3@example.com", "role", "admin"));
        server.clock.advance(Duration.ofDays(1));
        try {
            var resent = server.emailUser("admin3@example.com").post("/invitations/" + invitation.path("id").asText() + "/resend", Map.of()).path("invitation");
            assertTrue(Instant.parse(resent.path("expires_at").asText())
                    .isAfter(Instant.parse(invitation.path("expires_at").asText())));
            assertTrue(resent.path("email_sent").asBoolean());
            assertEquals(2, outboxCount("resend@example.com"));
        } finally {
            server.clock.reset();
        }
    }

    @Test
    void listsArePagedAndInputIsChecked() {
        for (int i = 0; i < 5; i++) {
            invite("paged" + i + "@example.com", "viewer");
        }
        var first = admin.get("/workspaces/" + ws + "/invitations?limit=3");
        assertEquals(3, first.path("invitations").size());
        assertTrue(first.path("has_more").asBoolean());
        var second = admin.get("/workspaces/" + ws + "/invitations?limit=3&cursor=" + first.path("next_cursor").asText());
        assertEquals(2, second.path("invitations").size());
        assertError(admin.send("GET", "/workspaces/" + ws + "/invitations?state=open", null, Map.of()), 400, "invalid_request");
        for (var body : new Map[] {Map.of("email", "nope", "role", "viewer"), Map.of("email", "a@example.com", "role", "owner"),
                Map.of("role", "viewer")}) {
            assertError(admin.send("POST", "/workspaces/" + ws + "/invitations", body,
                    Map.of("Idempotency-Key", UUID.randomUUID().toString())), 400, "invalid_request");
        }
    }

    @Test
    void mailIsRetriedUntilTheSmtpServerAnswers() throws Exception {
        int port;
        try (var s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        var smtp = new GreenMail(new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        try (var mailing = TestServer.start(c -> c.withMailRetry(Duration.ofMillis(200))
                .withSmtp(new SmtpSettings("127.0.0.1", port, "none", null, null, "hearth@example.com")))) {
            var admin = mailing.admin();
            String workspace = TestServer.workspace(admin).path("id").asText();
            var invitation = admin.create("/workspaces/" + workspace + "/invitations",
                    Map.of("email", "later@example.com", "role", "viewer")).path("invitation");
            assertFalse(invitation.path("email_sent").asBoolean(), "the SMTP server is down, yet the call succeeded");
            smtp.start();
            assertTrue(smtp.waitForIncomingEmail(20_000, 1), "the mail arrives once the server answers");
            var message = smtp.getReceivedMessages()[0];
            assertEquals("later@example.com", message.getAllRecipients()[0].toString());
            assertTrue(GreenMailUtil.getBody(message).contains("hearth invitations accept " + invitation.path("id").asText()));
            JsonNode sent = null;
            for (int i = 0; i < 100; i++) {
                sent = admin.get("/invitations/" + invitation.path("id").asText()).path("invitation");
                if (sent.path("email_sent").asBoolean()) {
                    break;
                }
                Thread.sleep(50);
            }
            assertTrue(sent.path("email_sent").asBoolean());
        } finally {
            smtp.stop();
        }
    }

    private boolean outboxMentions(String email, String text) throws Exception {
        try (var files = Files.list(server.dataDir.resolve("outbox"))) {
            return files.map(f -> {
                try {
                    return Files.readString(f);
                } catch (IOException e) {
                    return "";
                }
            }).anyMatch(m -> m.startsWith("To: " + email) && m.contains(text));
        }
    }

    private long outboxCount(String email) throws Exception {
        try (var files = Files.list(server.dataDir.resolve("outbox"))) {
            return files.filter(f -> {
                try {
                    return Files.readString(f).startsWith("To: " + email + "\nSubject: You are invited");
                } catch (IOException e) {
                    return false;
                }
            }).count();
        }
    }
}
