package dev.hearth.server.access;

import dev.hearth.api.tenancy.Role;
import java.time.Instant;

/** A principal's role in a workspace, as stored. */
public record Grant(String workspace, String principal, Role role, Instant createdAt, Instant updatedAt) {
}
