package dev.hearth.server.invitations;

import dev.hearth.api.invitations.InvitationState;
import dev.hearth.api.invitations.InvitationView;
import dev.hearth.api.tenancy.Role;
import java.time.Instant;

/** An invitation to a workspace, as stored. */
public record Invitation(String id, String workspace, String email, Role role, InvitationState storedState,
                         String invitedBy,
                         Instant createdAt, Instant updatedAt, Instant expiresAt, boolean emailSent,
                         Instant lastSentAt, int sendAttempts, String lastSendError, String acceptedBy,
                         Instant acceptedAt) {
    /** The state a client sees: a pending invitation past its expiry reads as expired. */
    public InvitationState state(Instant now) {
        return storedState == InvitationState.PENDING && !expiresAt.isAfter(now) ? InvitationState.EXPIRED : storedState;
    }

    public InvitationView view(Instant now) {
        return new InvitationView(id, workspace, email, role, state(now), invitedBy, createdAt, updatedAt, expiresAt, lastSentAt,
                emailSent, acceptedBy, acceptedAt);
    }
}
