package dev.hearth.server.e2b;

import dev.hearth.api.ApiException;
import dev.hearth.server.access.ApiKey;
import dev.hearth.server.auth.Authenticator;
import dev.hearth.server.tenancy.Caller;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who an E2B request is. The control plane sends a Hearth API key as {@code X-API-KEY} (E2B's
 * header; {@code Authorization: Bearer} works too), which is passed on to {@code /v1} as it is. The
 * envd calls carry only a sandbox's access token; they act as the API key that made the sandbox,
 * with a short-lived access token minted for it (checked on every request like the key itself).
 */
final class E2bAuth {
    /** A caller of the control plane: the key as {@code /v1} takes it, and the workspace it is bound to. */
    record Key(String authorization, String keyId, String workspace) {
    }

    private record Minted(String token, long until) {
    }

    private final Authenticator authenticator;
    private final Map<String, Minted> minted = new ConcurrentHashMap<>();

    E2bAuth(Authenticator authenticator) {
        this.authenticator = authenticator;
    }

    Key key(String apiKeyHeader, String authorization) {
        String secret = apiKeyHeader != null && !apiKeyHeader.isBlank() ? apiKeyHeader.strip()
                : authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)
                ? authorization.substring(7).strip() : null;
        if (secret == null || !ApiKey.isSecret(secret)) {
            throw new E2bException(401, "send a Hearth API key as X-API-KEY (E2B_API_KEY): make one with "
                    + "hearth api-keys create NAME -w WORKSPACE");
        }
        Caller caller;
        try {
            caller = authenticator.authenticate("Bearer " + secret);
        } catch (ApiException e) {
            throw new E2bException(401, e.getMessage());
        }
        var bound = caller.boundTo().orElseThrow();
        return new Key("Bearer " + secret, bound.keyId(), bound.workspace());
    }

    /** The Authorization for {@code /v1} calls made for the sandbox made by API key {@code keyId}. */
    String onBehalfOf(String keyId) {
        long now = System.nanoTime();
        var known = minted.get(keyId);
        if (known != null && known.until() > now) {
            return known.token();
        }
        String token;
        try {
            token = authenticator.tokenForApiKey(keyId);
        } catch (ApiException e) {
            throw new E2bException(401, "the API key that made this sandbox no longer works: " + e.getMessage());
        }
        // Used for half its life: a request made near the end never carries an expired token.
        long life = authenticator.tokenLifetime().dividedBy(2).toNanos();
        minted.put(keyId, new Minted("Bearer " + token, now + life));
        return "Bearer " + token;
    }

}
