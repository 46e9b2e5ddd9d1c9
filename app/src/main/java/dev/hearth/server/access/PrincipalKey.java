package dev.hearth.server.access;

import java.time.Instant;

/** A public key a key principal signs token assertions with. */
public record PrincipalKey(String id, String principal, String publicKey, boolean byok, String createdBy,
                           Instant createdAt, Instant expiresAt, Instant lastUsedAt, Instant revokedAt) {

    public enum State { ACTIVE, REVOKED, EXPIRED }

    /** The Key object of the wire (never the key material). */
    public record View(String id, String principal, boolean byok, String createdBy, Instant expiresAt,
                       Instant lastUsedAt, Instant createdAt, Instant revokedAt) {
    }

    public State state(Instant now) {
        if (revokedAt != null) {
            return State.REVOKED;
        }
        return expiresAt.isAfter(now) ? State.ACTIVE : State.EXPIRED;
    }

    public View view() {
        return new View(id, principal, byok, createdBy, expiresAt, lastUsedAt, createdAt, revokedAt);
    }
}
