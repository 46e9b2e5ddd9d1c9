package dev.hearth.server.computers;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Where a computer is, in one word: what its state, a move under way, its sleep's depth and its
 * deletion say together, and the one table of which {@link Move} each phase allows (a move the
 * table forbids answers 409 to whoever asked for it). The loops that act on computers (supervise,
 * deepen a sleep, move off a draining node, end a lifetime, reconcile) read this, not the parts.
 */
public enum Phase {
    /** Deleted, or being deleted: nothing acts on it but the delete. */
    DELETED,
    /** A move (a sleep, a restore, a delete) is under way: only that move acts on it. */
    MOVING,
    CREATING,
    AWAKE,
    /** Asleep with its sandbox frozen in memory. */
    ASLEEP_WARM,
    /** Asleep with its memory on disk, no sandbox: it may move to another node. */
    ASLEEP_COLD,
    FAILED;

    private static final Set<Move> ASLEEP = EnumSet.of(Move.EXEC, Move.WAKE, Move.CHECKPOINT, Move.RESTORE, Move.FAIL);
    private static final Map<Phase, Set<Move>> ALLOWED = Map.of(
            DELETED, EnumSet.noneOf(Move.class),
            MOVING, EnumSet.noneOf(Move.class),
            CREATING, EnumSet.of(Move.START, Move.FAIL),
            AWAKE, EnumSet.of(Move.EXEC, Move.SLEEP, Move.RESTART, Move.CHECKPOINT, Move.RESTORE, Move.FAIL),
            ASLEEP_WARM, ASLEEP,
            ASLEEP_COLD, ASLEEP,
            FAILED, EnumSet.of(Move.RESTORE, Move.FAIL));

    public boolean allows(Move move) {
        return ALLOWED.get(this).contains(move);
    }

    public boolean asleep() {
        return this == ASLEEP_WARM || this == ASLEEP_COLD;
    }
}
