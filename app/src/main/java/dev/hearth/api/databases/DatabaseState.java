package dev.hearth.api.databases;

import dev.hearth.api.WireName;
import java.util.Locale;
import java.util.Map;

/**
 * Whether a database's cluster runs (ready) or not (sleeping), and the one table of which move may
 * happen from which state and the state it leaves. The supervisor asks it with the state of what
 * runs in memory; the stored row follows (it may lag behind when a write to the store failed).
 */
public enum DatabaseState implements WireName {
    READY, SLEEPING;

    /** What can happen to a database. */
    public enum Move {
        /** A connection or the API starts the cluster (a restart after a crash is one too). */
        WAKE,
        /** On request, after the auto-sleep delay, at delete, or when Hearth stops. */
        SLEEP,
        /** Postgres exited without being asked. */
        CRASH,
        /** A new password: set at once when awake, recorded and applied before the next wake when asleep. */
        RESET,
        /** An online base backup when awake, a copy of the data directory when asleep. */
        CHECKPOINT,
        /** Only once the cluster is stopped. */
        DELETE
    }

    private static final Map<DatabaseState, Map<Move, DatabaseState>> MOVES = Map.of(
            READY, Map.of(Move.SLEEP, SLEEPING, Move.CRASH, SLEEPING, Move.RESET, READY, Move.CHECKPOINT, READY),
            SLEEPING, Map.of(Move.WAKE, READY, Move.RESET, SLEEPING, Move.CHECKPOINT, SLEEPING,
                    Move.DELETE, SLEEPING));

    public boolean allows(Move move) {
        return MOVES.get(this).containsKey(move);
    }

    /** The state {@code move} leaves, if the table allows it from here; a move it forbids is a bug in the caller. */
    public DatabaseState after(Move move) {
        var next = MOVES.get(this).get(move);
        if (next == null) {
            throw new IllegalStateException("a " + wire() + " database cannot " + move.name().toLowerCase(Locale.ROOT));
        }
        return next;
    }

    /** The wire and stored form. */

    /** The wire form, so that messages read as the API speaks. */
    @Override
    public String toString() {
        return wire();
    }

    /** From the stored form. */
    public static DatabaseState of(String wire) {
        return WireName.parse(DatabaseState.class, wire);
    }
}
