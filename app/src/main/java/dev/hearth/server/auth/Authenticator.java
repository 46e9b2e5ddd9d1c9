package dev.hearth.server.auth;

import dev.hearth.api.ApiException;
import dev.hearth.server.access.PrincipalKey;
import dev.hearth.server.access.PrincipalStore;
import dev.hearth.server.tenancy.Caller;
import dev.hearth.server.tenancy.Caller.KeyCredential;
import dev.hearth.server.tenancy.Caller.SessionCredential;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Jdbi;

/**
 * Turns a Bearer token into a {@link Caller}. Besides the token's own checks it looks up the key or
 * session the token was issued for, so a revoked key or ended session is refused on its next request.
 */
public final class Authenticator {
    private final AccessTokens tokens;
    private final Jdbi jdbi;
    private final PrincipalStore principals;
    private final AuthStore store;
    private final Clock clock;

    public Authenticator(AccessTokens tokens, Jdbi jdbi, PrincipalStore principals, AuthStore store, Clock clock) {
        this.tokens = tokens;
        this.jdbi = jdbi;
        this.principals = principals;
        this.store = store;
        this.clock = clock;
    }

    public Caller authenticate(String authorization) {
        var claims = claims(authorization);
        return confirm(claims.principal(), claims.credential());
    }

    /**
     * The caller of a request this node relays to the node that runs what it names: the token is
     * checked as always, but its key or session is looked up in the store at most every
     * {@link #RELAY_CONFIRM_NANOS}, since the node it is relayed to looks it up again itself
     * ({@link #vouched}), so a revoked key is refused there at once all the same.
     */
    public Caller authenticateToRelay(String authorization) {
        var claims = claims(authorization);
        String key = claims.principal() + " " + claims.credential();
        var seen = relayed.get(key);
        long now = System.nanoTime();
        if (seen != null && now - seen.at() < RELAY_CONFIRM_NANOS) {
            return seen.caller();
        }
        var caller = confirm(claims.principal(), claims.credential());
        if (relayed.size() >= 10_000) {
            relayed.clear();
        }
        relayed.put(key, new Confirmed(caller, now));
        return caller;
    }

    private static final long RELAY_CONFIRM_NANOS = 5_000_000_000L;

    private record Confirmed(Caller caller, long at) {
    }

    private final Map<String, Confirmed> relayed = new ConcurrentHashMap<>();

    private AccessTokens.Claims claims(String authorization) {
        if (authorization == null || authorization.isBlank()) {
            throw ApiException.unauthenticated("send Authorization: Bearer <access token> (get one with hearth auth token)");
        }
        if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw ApiException.unauthenticated("the Authorization header must use the Bearer scheme");
        }
        return tokens.verify(authorization.substring(7).strip());
    }

    /**
     * The caller a relaying node vouched for, in the form {@link #vouchable} wrote: checked again
     * here, so a key revoked or a session ended between the two nodes is refused all the same.
     */
    public Caller vouched(String text) {
        String[] parts = text.split(" ", 3);
        if (parts.length != 3 || !(parts[1].equals("key") || parts[1].equals("session"))) {
            throw ApiException.unauthenticated("the relaying node's caller is malformed");
        }
        return confirm(parts[0], parts[1].equals("key") ? new KeyCredential(parts[2]) : new SessionCredential(parts[2]));
    }

    /** {@code principal key|session id}: what a relaying node vouches for. */
    public static String vouchable(Caller caller) {
        return caller.id() + switch (caller.credential()) {
            case KeyCredential k -> " key " + k.keyId();
            case SessionCredential s -> " session " + s.sessionId();
        };
    }

    private Caller confirm(String principalId, Caller.Credential credential) {
        return jdbi.withHandle(h -> {
            var principal = principals.find(h, principalId)
                    .orElseThrow(() -> ApiException.unauthenticated("the token's principal no longer exists"));
            switch (credential) {
                case KeyCredential k -> requireActiveKey(principals.findKey(h, k.keyId()).orElse(null));
                case SessionCredential s -> requireLiveSession(store.session(h, s.sessionId()).orElse(null));
            }
            return new Caller(principal, credential);
        });
    }

    private void requireActiveKey(PrincipalKey key) {
        if (key == null || key.state(clock.instant()) != PrincipalKey.State.ACTIVE) {
            throw ApiException.unauthenticated("the key this token was issued for is revoked or expired");
        }
    }

    private void requireLiveSession(AuthStore.Session session) {
        if (session == null || session.revokedAt() != null || !session.expiresAt().isAfter(clock.instant())) {
            throw ApiException.unauthenticated("this session has ended; sign in again (hearth auth login)");
        }
    }
}
