package dev.hearth.server.auth;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Validate;
import dev.hearth.api.auth.EmailLoginStarted;
import dev.hearth.api.auth.EmailLoginTokens;
import dev.hearth.server.access.AccessService;
import dev.hearth.server.crypto.Secrets;
import dev.hearth.server.mail.Mail;
import dev.hearth.server.mail.Mailer;
import dev.hearth.server.store.Ids;
import dev.hearth.server.tenancy.Caller.SessionCredential;
import dev.hearth.server.tenancy.Principal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sign-in by email: a one-time code (single use, 10 minutes, stored hashed, 5 attempts) opens a
 * session whose refresh tokens rotate on every use; presenting a rotated one ends the session.
 */
public final class EmailLogin {
    private static final Logger LOG = LoggerFactory.getLogger(EmailLogin.class);
    static final Duration CODE_LIFETIME = Duration.ofMinutes(10);
    static final int MAX_ATTEMPTS = 5;
    static final int MAX_CODES_PER_WINDOW = 5;

    private final Jdbi jdbi;
    private final AuthStore store;
    private final AccessService access;
    private final AccessTokens tokens;
    private final Mailer mailer;
    private final Clock clock;
    private final Duration sessionLifetime;

    public EmailLogin(Jdbi jdbi, AuthStore store, AccessService access, AccessTokens tokens, Mailer mailer,
                      Clock clock, Duration sessionLifetime) {
        this.jdbi = jdbi;
        this.store = store;
        this.access = access;
        this.tokens = tokens;
        this.mailer = mailer;
        this.clock = clock;
        this.sessionLifetime = sessionLifetime;
    }

    /** Mails a code. The answer is the same whether or not the address has signed in before. */
    public EmailLoginStarted start(String rawEmail) {
        String email = Validate.email("email", rawEmail);
        String code = Secrets.digits(6);
        String id = Ids.next();
        Instant now = now();
        Instant expires = now.plus(CODE_LIFETIME);
        jdbi.useTransaction(h -> {
            if (store.codesSince(h, email, now.minus(CODE_LIFETIME)) >= MAX_CODES_PER_WINDOW) {
                throw new ApiException(ErrorCode.RATE_LIMITED, "too many codes requested for " + email
                        + "; wait 10 minutes", Map.of("retry_after_seconds", CODE_LIFETIME.toSeconds()));
            }
            store.insertCode(h, id, email, Secrets.sha256(id + ":" + code), now, expires);
        });
        try {
            mailer.send(new Mail(email, "Your Hearth sign-in code: " + code,
                    "Your Hearth sign-in code is " + code + ".\n\nIt works once, for 10 minutes.\n"
                            + "If you did not ask to sign in, ignore this mail.\n"));
        } catch (Mailer.MailException e) {
            LOG.warn("sign-in code for {} not delivered: {}", email, e.getMessage());
            jdbi.useHandle(h -> store.useCode(h, id, now));
            throw new ApiException(ErrorCode.MAIL_UNAVAILABLE, "the sign-in mail could not be sent; try again later");
        }
        return new EmailLoginStarted(email, expires);
    }

    public EmailLoginTokens verify(String rawEmail, String code) {
        String email = Validate.email("email", rawEmail);
        Validate.required("code", code);
        Instant now = now();
        var outcome = jdbi.inTransaction(h -> check(h, email, code.strip(), now));
        if (outcome instanceof ApiException wrong) {
            throw wrong;
        }
        return (EmailLoginTokens) outcome;
    }

    /** Returns tokens, or the error to throw after the attempt count is committed. */
    private Object check(Handle h, String email, String code, Instant now) {
        var active = store.activeCode(h, email, now).orElse(null);
        if (active == null || active.attempts() >= MAX_ATTEMPTS) {
            return invalidCode("no active code for " + email + "; request a new one");
        }
        if (!Secrets.sameDigest(active.codeHash(), Secrets.sha256(active.id() + ":" + code))) {
            store.countAttempt(h, active.id());
            int left = MAX_ATTEMPTS - active.attempts() - 1;
            if (left == 0) {
                store.useCode(h, active.id(), now);
            }
            return invalidCode("wrong code; " + left + " attempt" + (left == 1 ? "" : "s") + " left");
        }
        if (!store.useCode(h, active.id(), now)) {
            return invalidCode("this code was used already; request a new one");
        }
        var principal = access.emailPrincipal(h, email);
        return openSession(h, principal, now);
    }

    private EmailLoginTokens openSession(Handle h, Principal principal, Instant now) {
        String sessionId = Ids.next();
        store.insertSession(h, sessionId, principal.id(), now, now.plus(sessionLifetime));
        String refresh = newRefresh(h, sessionId, now);
        return tokens(principal, sessionId, refresh);
    }

    /** Rotates a refresh token. Reusing a rotated token ends the whole session: it was likely stolen. */
    public EmailLoginTokens refresh(String refreshToken) {
        Validate.required("refresh_token", refreshToken);
        Instant now = now();
        var outcome = jdbi.inTransaction(h -> rotate(h, Secrets.sha256(refreshToken), now));
        if (outcome instanceof ApiException e) {
            throw e;
        }
        return (EmailLoginTokens) outcome;
    }

    private Object rotate(Handle h, String hash, Instant now) {
        var token = store.refresh(h, hash).orElse(null);
        if (token == null) {
            return ApiException.unauthenticated("unknown refresh token; sign in again");
        }
        var session = store.session(h, token.session()).orElseThrow();
        if (token.usedAt() != null || !store.useRefresh(h, hash, now)) {
            store.revokeSession(h, session.id(), "refresh_token_reuse", now);
            LOG.warn("refresh token of session {} reused; session ended", session.id());
            return ApiException.unauthenticated("this refresh token was used already; the session is ended, sign in again");
        }
        if (session.revokedAt() != null || !session.expiresAt().isAfter(now)) {
            return ApiException.unauthenticated("this session has ended; sign in again");
        }
        store.extendSession(h, session.id(), now.plus(sessionLifetime));
        var principal = access.principal(h, session.principal());
        return tokens(principal, session.id(), newRefresh(h, session.id(), now));
    }

    public void logout(String refreshToken) {
        Validate.required("refresh_token", refreshToken);
        Instant now = now();
        jdbi.useTransaction(h -> store.refresh(h, Secrets.sha256(refreshToken))
                .ifPresent(t -> store.revokeSession(h, t.session(), "logout", now)));
    }

    private String newRefresh(Handle h, String sessionId, Instant now) {
        String refresh = Secrets.token("hrt_");
        store.insertRefresh(h, Secrets.sha256(refresh), sessionId, now);
        return refresh;
    }

    private EmailLoginTokens tokens(Principal principal, String sessionId, String refresh) {
        String access = tokens.issue(principal.id(), new SessionCredential(sessionId));
        return new EmailLoginTokens(access, "Bearer", tokens.lifetime().toSeconds(), refresh, principal.view());
    }

    private static ApiException invalidCode(String message) {
        return new ApiException(ErrorCode.INVALID_CODE, message);
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
