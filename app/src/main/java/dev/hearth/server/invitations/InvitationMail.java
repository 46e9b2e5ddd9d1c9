package dev.hearth.server.invitations;

import dev.hearth.server.mail.Mail;
import dev.hearth.server.mail.Mailer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers invitation mail. A send is tried once when the invitation is made; a failure is retried
 * from the store with exponential backoff (from {@code firstRetry}, at most an hour apart) until it
 * succeeds or the invitation stops being pending. A failure never fails an API call.
 */
public final class InvitationMail implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(InvitationMail.class);
    private static final Duration MAX_BACKOFF = Duration.ofHours(1);
    private static final Duration SENDING = Duration.ofMinutes(2);

    private final Jdbi jdbi;
    private final InvitationStore store;
    private final Mailer mailer;
    private final Clock clock;
    private final Duration firstRetry;
    private final String baseUrl;
    private final Function<String, String> workspaceName;
    private final ScheduledExecutorService worker =
            Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("invitation-mail").factory());

    public InvitationMail(Jdbi jdbi, InvitationStore store, Mailer mailer, Clock clock, Duration firstRetry,
                          String baseUrl, Function<String, String> workspaceName) {
        this.jdbi = jdbi;
        this.store = store;
        this.mailer = mailer;
        this.clock = clock;
        this.firstRetry = firstRetry;
        this.baseUrl = baseUrl;
        this.workspaceName = workspaceName;
    }

    public void start() {
        long period = Math.max(100, Math.min(5000, firstRetry.toMillis() / 2));
        worker.scheduleWithFixedDelay(this::sendDue, period, period, TimeUnit.MILLISECONDS);
    }

    /** Tries to send one invitation's mail now, if it is due; the outcome is in the store. */
    public void sendNow(String id) {
        jdbi.withHandle(h -> store.find(h, id)).ifPresent(this::send);
    }

    private void sendDue() {
        try {
            jdbi.withHandle(h -> store.dueMail(h, now(), 20)).forEach(this::send);
        } catch (RuntimeException e) {
            LOG.warn("sending invitation mail failed; will retry", e);
        }
    }

    private void send(Invitation invitation) {
        Instant now = now();
        if (!jdbi.inTransaction(h -> store.claimMail(h, invitation.id(), invitation.sendAttempts(), now.plus(SENDING)))) {
            return;
        }
        try {
            mailer.send(mail(invitation));
            jdbi.useTransaction(h -> store.mailSent(h, invitation.id(), now()));
        } catch (RuntimeException e) {
            Duration backoff = backoff(invitation.sendAttempts() + 1);
            LOG.warn("invitation {} mail to {} failed (attempt {}), retrying in {}: {}", invitation.id(),
                    invitation.email(), invitation.sendAttempts() + 1, backoff, e.getMessage());
            jdbi.useTransaction(h -> store.mailFailed(h, invitation.id(), e.getMessage(), now().plus(backoff)));
        }
    }

    private Duration backoff(int attempts) {
        long factor = 1L << Math.min(20, attempts - 1);
        Duration d = firstRetry.multipliedBy(factor);
        return d.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : d;
    }

    private Mail mail(Invitation i) {
        String workspace = workspaceName.apply(i.workspace());
        return new Mail(i.email(), "You are invited to the Hearth workspace " + workspace,
                "You are invited to the Hearth workspace " + workspace + " as " + i.role().wire() + ".\n\n"
                        + "Sign in with this address and accept:\n\n"
                        + "  hearth auth login --email " + i.email() + "\n"
                        + "  hearth invitations accept " + i.id() + "\n\n"
                        + "or POST " + baseUrl + "/invitations/" + i.id() + "/accept with your access token.\n"
                        + "The invitation expires at " + i.expiresAt() + ".\n");
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
