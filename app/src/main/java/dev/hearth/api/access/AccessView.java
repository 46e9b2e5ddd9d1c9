package dev.hearth.api.access;

import dev.hearth.api.tenancy.PrincipalView;
import dev.hearth.api.tenancy.Role;
import java.time.Instant;

/** The Access object of the wire. {@code key} and {@code key_state} are null for email principals. */
public record AccessView(PrincipalView principal, Role role, String description, PrincipalKeyView key,
                         String keyState, Instant createdAt) {
}
