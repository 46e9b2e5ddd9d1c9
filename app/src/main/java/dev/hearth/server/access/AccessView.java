package dev.hearth.server.access;

import dev.hearth.server.tenancy.Principal;
import dev.hearth.server.tenancy.Role;
import java.time.Instant;

/** The Access object of the wire. {@code key} and {@code key_state} are null for email principals. */
public record AccessView(Principal.View principal, Role role, String description, PrincipalKey.View key,
                         String keyState, Instant createdAt) {
}
