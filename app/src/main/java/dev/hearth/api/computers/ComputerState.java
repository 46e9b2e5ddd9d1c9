package dev.hearth.api.computers;

import dev.hearth.api.WireName;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Where a computer is in its life, and the one table of which {@link Move} each state allows. A
 * move the table forbids answers 409 to the caller who asked for it.
 */
public enum ComputerState implements WireName {
    CREATING, READY, SLEEPING, FAILED;

    /** What can happen to a computer; the table below says from which state. */
    public enum Move {
        /** Its first sandbox started (from the image, or restored from a checkpoint for a fork). */
        START,
        /** A command runs in it; a sleeping one is woken first. */
        EXEC,
        /** It goes to sleep, its memory checkpointed to disk. */
        SLEEP,
        /** A sleeping one runs again from its sleep image. */
        WAKE,
        /** Its main process ended and the supervisor starts it again. */
        RESTART,
        /** A checkpoint is taken of it (paused while running, or from its sleep image). */
        CHECKPOINT,
        /** It is rolled back to one of its checkpoints, in place. */
        RESTORE,
        /** It could not start, wake or be restored. */
        FAIL
    }

    private static final Map<ComputerState, Set<Move>> ALLOWED = Map.of(
            CREATING, EnumSet.of(Move.START, Move.FAIL),
            READY, EnumSet.of(Move.EXEC, Move.SLEEP, Move.RESTART, Move.CHECKPOINT, Move.RESTORE, Move.FAIL),
            SLEEPING, EnumSet.of(Move.EXEC, Move.WAKE, Move.CHECKPOINT, Move.RESTORE, Move.FAIL),
            FAILED, EnumSet.of(Move.RESTORE, Move.FAIL));

    public boolean allows(Move move) {
        return ALLOWED.get(this).contains(move);
    }

    /** The wire form, so that messages read as the API speaks. */
    @Override
    public String toString() {
        return wire();
    }

    public static ComputerState of(String wire) {
        return WireName.parse(ComputerState.class, wire);
    }
}
