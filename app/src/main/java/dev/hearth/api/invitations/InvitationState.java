package dev.hearth.api.invitations;

import dev.hearth.api.WireName;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Where an invitation stands, as clients see it (a pending one past its expiry reads as expired),
 * and the one table of which {@link Move} each state allows.
 */
public enum InvitationState implements WireName {
    PENDING, ACCEPTED, REVOKED, EXPIRED;

    public enum Move { RESEND, ACCEPT, REVOKE }

    private static final Map<InvitationState, Set<Move>> ALLOWED = Map.of(
            PENDING, EnumSet.of(Move.RESEND, Move.ACCEPT, Move.REVOKE),
            EXPIRED, EnumSet.of(Move.RESEND, Move.REVOKE),
            REVOKED, EnumSet.of(Move.REVOKE),
            ACCEPTED, EnumSet.noneOf(Move.class));

    public boolean allows(Move move) {
        return ALLOWED.get(this).contains(move);
    }

    @Override
    public String toString() {
        return wire();
    }

    public static InvitationState of(String wire) {
        return WireName.parse(InvitationState.class, wire);
    }
}
