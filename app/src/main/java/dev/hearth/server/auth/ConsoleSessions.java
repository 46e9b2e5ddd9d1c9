package dev.hearth.server.auth;

import dev.hearth.api.ApiException;
import dev.hearth.api.Validate;
import dev.hearth.api.tenancy.PrincipalView;
import dev.hearth.server.crypto.Secrets;
import dev.hearth.server.tenancy.Caller;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.jdbi.v3.core.Jdbi;

/**
 * The web console's sign-ins. A person signs in with a mailed code (an email session), an API key
 * or a key file's assertion; the browser then holds only an opaque HttpOnly cookie, which stands for that principal and
 * credential here. Every request with it is authenticated as a fresh access token for them would
 * be, so an ended session, a revoked key or a logout ends the cookie too.
 */
public final class ConsoleSessions {
    /** A new sign-in: the cookie's value (shown to the browser once, in Set-Cookie) and who it is. */
    public record Opened(String token, Duration lifetime, PrincipalView principal) {
    }

    private final Jdbi jdbi;
    private final ConsoleCookies cookies = new ConsoleCookies();
    private final AuthStore store;
    private final Authenticator authenticator;
    private final EmailLogin login;
    private final AccessTokens tokens;
    private final TokenGrant grant;
    private final Clock clock;
    private final Duration lifetime;

    public ConsoleSessions(Jdbi jdbi, AuthStore store, Authenticator authenticator, EmailLogin login,
                           AccessTokens tokens, TokenGrant grant, Clock clock, Duration lifetime) {
        this.jdbi = jdbi;
        this.store = store;
        this.authenticator = authenticator;
        this.login = login;
        this.tokens = tokens;
        this.grant = grant;
        this.clock = clock;
        this.lifetime = lifetime;
    }

    /** Signs in with a mailed code: the email session it opens is the cookie's. */
    public Opened withCode(String email, String code) {
        var signedIn = login.verify(email, code);
        var claims = tokens.verify(signedIn.accessToken());
        return open(claims.principal(), claims.credential(), signedIn.principal());
    }

    /** Signs in with an API key (or an access token): the cookie acts as it, bound to what it is bound to. */
    public Opened withBearer(String secret) {
        var caller = authenticator.authenticate("Bearer " + Validate.required("api_key", secret).strip());
        return open(caller.id(), caller.credential(), caller.principal().view());
    }

    /**
     * Signs in with a key file: the browser signs an RFC 7523 assertion with its private key (which
     * never leaves the page), and the cookie acts as the key, ending when the key is revoked.
     */
    public Opened withAssertion(String assertion) {
        return withBearer(grant.exchange(TokenGrant.JWT_BEARER, assertion).accessToken());
    }

    private Opened open(String principal, Caller.Credential credential, PrincipalView view) {
        String token = Secrets.token("hcs_");
        Instant now = now();
        jdbi.useHandle(h -> cookies.insert(h, Secrets.sha256(token), principal, Authenticator.vouchable(credential),
                now, now.plus(lifetime)));
        return new Opened(token, lifetime, view);
    }

    /**
     * The Authorization a request sent with this cookie is served with: a fresh access token for
     * what the cookie stands for, once its key or session is confirmed live. 401 for a cookie that
     * ended (logout, expiry, a revoked key or session).
     */
    public String authorization(String token) {
        var row = jdbi.withHandle(h -> cookies.find(h, Secrets.sha256(token)))
                .filter(r -> r.revokedAt() == null && r.expiresAt().isAfter(clock.instant()))
                .orElseThrow(() -> ApiException.unauthenticated("the console's sign-in has ended; sign in again"));
        var caller = authenticator.vouched(row.principal() + " " + row.credential());
        return "Bearer " + tokens.issue(caller.id(), caller.credential());
    }

    /** Ends the cookie's sign-in here, and its email session with it. */
    public void logout(String token) {
        Instant now = now();
        jdbi.useTransaction(h -> {
            var row = cookies.find(h, Secrets.sha256(token));
            cookies.revoke(h, Secrets.sha256(token), now);
            row.filter(r -> r.credential().startsWith("session "))
                    .ifPresent(r -> store.revokeSession(h, r.credential().substring(8), "logout", now));
        });
    }

    public void purge(Instant now) {
        jdbi.useHandle(h -> cookies.purge(h, now));
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
