package dev.hearth.api.access;

import java.time.Instant;

/** The Key object of the wire (never the key material). */
public record PrincipalKeyView(String id, String principal, boolean byok, String createdBy, Instant expiresAt,
                               Instant lastUsedAt, Instant createdAt, Instant revokedAt) {
}
