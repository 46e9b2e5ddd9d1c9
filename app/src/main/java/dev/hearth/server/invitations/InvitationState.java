package dev.hearth.server.invitations;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Where an invitation stands, as clients see it (a pending one past its expiry reads as expired),
 * and the one table of which {@link Move} each state allows.
 */
public enum InvitationState {
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

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return wire();
    }

    public static InvitationState of(String wire) {
        return valueOf(wire.toUpperCase(Locale.ROOT));
    }
}
