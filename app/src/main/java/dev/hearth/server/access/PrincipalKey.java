package dev.hearth.server.access;

import dev.hearth.api.access.PrincipalKeyView;
import java.time.Instant;

/** A public key a key principal signs token assertions with. */
public record PrincipalKey(String id, String principal, String publicKey, boolean byok, String createdBy,
                           Instant createdAt, Instant expiresAt, Instant lastUsedAt, Instant revokedAt) {
    public enum State { ACTIVE, REVOKED, EXPIRED }

    public State state(Instant now) {
        if (revokedAt != null) {
            return State.REVOKED;
        }
        return expiresAt.isAfter(now) ? State.ACTIVE : State.EXPIRED;
    }

    public PrincipalKeyView view() {
        return new PrincipalKeyView(id, principal, byok, createdBy, expiresAt, lastUsedAt, createdAt, revokedAt);
    }
}
