package dev.hearth.api.invitations;

import dev.hearth.api.tenancy.Role;
import java.time.Instant;

/** The Invitation of the wire. */
public record InvitationView(String id, String workspace, String email, Role role, InvitationState state, String invitedBy,
                             Instant createdAt, Instant updatedAt, Instant expiresAt, Instant lastSentAt, boolean emailSent,
                             String acceptedBy, Instant acceptedAt) {
}
