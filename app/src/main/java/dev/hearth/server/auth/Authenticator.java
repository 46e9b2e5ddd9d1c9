package dev.hearth.server.auth;

import dev.hearth.api.ApiException;
import dev.hearth.server.access.ApiKey;
import dev.hearth.server.access.ApiKeys;
import dev.hearth.server.access.PrincipalKey;
import dev.hearth.server.access.PrincipalStore;
import dev.hearth.server.tenancy.Caller;
import dev.hearth.server.tenancy.Caller.ApiKeyCredential;
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
    private final ApiKeys apiKeys;
    private final Clock clock;

    public Authenticator(AccessTokens tokens, Jdbi jdbi, PrincipalStore principals, AuthStore store, ApiKeys apiKeys,
                         Clock clock) {
        this.apiKeys = apiKeys;
        this.tokens = tokens;
        this.jdbi = jdbi;
        this.principals = principals;
        this.store = store;
        this.clock = clock;
    }

    public Caller authenticate(String authorization) {
        String bearer = bearer(authorization);
        if (ApiKey.isSecret(bearer)) {
            return apiKeys.authenticate(bearer, principals);
        }
        var claims = tokens.verify(bearer);
        return confirm(claims.principal(), claims.credential());
    }

    /**
     * A short-lived access token for the caller an API key stands for, checked as when its secret is
     * sent: for work Hearth does on the key's behalf without its secret (E2B's in-sandbox calls).
     */
    public String tokenForApiKey(String keyId) {
        var caller = jdbi.withHandle(h -> apiKeys.confirm(h, keyId, principals));
        return tokens.issue(caller.id(), caller.credential());
    }

    /** How long a token lives. */
    public java.time.Duration tokenLifetime() {
        return tokens.lifetime();
    }

    /**
     * The caller of a request this node relays to the node that runs what it names: the token is
     * checked as always, but its key or session is looked up in the store at most every
     * {@link #RELAY_CONFIRM_NANOS}, since the node it is relayed to looks it up again itself
     * ({@link #vouched}), so a revoked key is refused there at once all the same.
     */
    public Caller authenticateToRelay(String authorization) {
        if (ApiKey.isSecret(bearer(authorization))) {
            return authenticate(authorization); // a digest lookup: as cheap as the cache below
        }
        var claims = tokens.verify(bearer(authorization));
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

    private static String bearer(String authorization) {
        if (authorization == null || authorization.isBlank()) {
            throw ApiException.unauthenticated("send Authorization: Bearer <access token or API key> (get a token with hearth auth token)");
        }
        if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw ApiException.unauthenticated("the Authorization header must use the Bearer scheme");
        }
        return authorization.substring(7).strip();
    }

    /**
     * The caller a relaying node vouched for, in the form {@link #vouchable} wrote: checked again
     * here, so a key revoked or a session ended between the two nodes is refused all the same.
     */
    public Caller vouched(String text) {
        String[] parts = text.split(" ", 3);
        if (parts.length != 3) {
            throw ApiException.unauthenticated("the relaying node's caller is malformed");
        }
        return confirm(parts[0], switch (parts[1]) {
            case "key" -> new KeyCredential(parts[2]);
            case "session" -> new SessionCredential(parts[2]);
            case "apikey" -> new ApiKeyCredential(parts[2], null, null);
            default -> throw ApiException.unauthenticated("the relaying node's caller is malformed");
        });
    }

    /** {@code principal key|session id}: what a relaying node vouches for. */
    public static String vouchable(Caller caller) {
        return caller.id() + " " + vouchable(caller.credential());
    }

    /** {@code key|session|apikey id}: the credential as {@link #vouched} reads it after the principal. */
    static String vouchable(Caller.Credential credential) {
        return switch (credential) {
            case KeyCredential k -> "key " + k.keyId();
            case SessionCredential s -> "session " + s.sessionId();
            case ApiKeyCredential a -> "apikey " + a.keyId();
        };
    }

    private Caller confirm(String principalId, Caller.Credential credential) {
        if (credential instanceof ApiKeyCredential a) {
            var caller = jdbi.withHandle(h -> apiKeys.confirm(h, a.keyId(), principals));
            if (!caller.id().equals(principalId)) {
                throw ApiException.unauthenticated("this token's API key belongs to another principal");
            }
            return caller;
        }
        return jdbi.withHandle(h -> {
            var principal = principals.find(h, principalId)
                    .orElseThrow(() -> ApiException.unauthenticated("the token's principal no longer exists"));
            switch (credential) {
                case KeyCredential k -> requireActiveKey(principals.findKey(h, k.keyId()).orElse(null));
                case SessionCredential s -> requireLiveSession(store.session(h, s.sessionId()).orElse(null));
                case ApiKeyCredential a -> throw new IllegalStateException("confirmed above");
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
