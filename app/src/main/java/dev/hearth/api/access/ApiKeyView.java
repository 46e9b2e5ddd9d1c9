package dev.hearth.api.access;

import dev.hearth.api.Required;
import dev.hearth.api.tenancy.Role;
import java.time.Instant;

/** The API key object of the wire (never the secret). */
public record ApiKeyView(@Required String id, @Required String workspace, String principal, @Required String name, @Required Role role, @Required String prefix,
                         @Required ApiKeyState state, @Required Instant createdAt, Instant expiresAt, Instant lastUsedAt, Instant revokedAt) {
}
