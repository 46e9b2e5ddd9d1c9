package dev.hearth.server.access;

import dev.hearth.api.access.ApiKeyState;
import dev.hearth.api.access.ApiKeyView;
import dev.hearth.api.tenancy.Role;
import java.time.Instant;

/**
 * A long-lived secret a script sends as {@code Authorization: Bearer} (or E2B's {@code X-API-KEY}):
 * it acts as its principal in one workspace, with its role or the principal's there, whichever is
 * lower. Only its digest is kept; the secret is shown once.
 */
public record ApiKey(String id, String workspace, String principal, String name, Role role, String prefix,
                     Instant createdAt, Instant expiresAt, Instant lastUsedAt, Instant revokedAt) {
    /** Every secret starts with this, so a key is told from an access token at a glance. */
    public static final String SECRET_PREFIX = "hk_";
    /**
     * The same secret as E2B's SDKs take it: some versions refuse a key that is not {@code e2b_} and
     * hex, so {@code e2b_HEX} is accepted as {@code hk_HEX} (secrets are hex for that reason).
     */
    public static final String E2B_PREFIX = "e2b_";

    /** Whether {@code credential} is an API key's secret (either spelling) rather than a token. */
    public static boolean isSecret(String credential) {
        return credential.startsWith(SECRET_PREFIX) || credential.startsWith(E2B_PREFIX);
    }

    /** The secret as it is stored: {@code e2b_HEX} is {@code hk_HEX}. */
    public static String canonical(String secret) {
        return secret.startsWith(E2B_PREFIX) ? SECRET_PREFIX + secret.substring(E2B_PREFIX.length()) : secret;
    }

    /** The secret as E2B's SDKs want it. */
    public static String e2bForm(String secret) {
        return E2B_PREFIX + canonical(secret).substring(SECRET_PREFIX.length());
    }

    public ApiKeyState state(Instant now) {
        if (revokedAt != null) {
            return ApiKeyState.REVOKED;
        }
        return expiresAt == null || expiresAt.isAfter(now) ? ApiKeyState.ACTIVE : ApiKeyState.EXPIRED;
    }

    public ApiKeyView view(Instant now) {
        return new ApiKeyView(id, workspace, principal, name, role, prefix, state(now), createdAt, expiresAt, lastUsedAt,
                revokedAt);
    }

    public ApiKey revoked(Instant at) {
        return new ApiKey(id, workspace, principal, name, role, prefix, createdAt, expiresAt, lastUsedAt, at);
    }
}
