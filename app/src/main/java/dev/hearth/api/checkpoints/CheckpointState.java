package dev.hearth.api.checkpoints;

import dev.hearth.api.WireName;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Where a checkpoint is in its life, and the one table of which state may follow which: a
 * checkpoint being made ends ready or failed; a ready or failed one may be deleted. Marking one
 * deleted because its source went away is not a move (see {@link Checkpoint#deleted}).
 */
public enum CheckpointState implements WireName {
    CREATING, READY, FAILED, DELETING;

    private static final Map<CheckpointState, Set<CheckpointState>> NEXT = Map.of(
            CREATING, EnumSet.of(READY, FAILED),
            READY, EnumSet.of(DELETING),
            FAILED, EnumSet.of(DELETING),
            DELETING, EnumSet.noneOf(CheckpointState.class));

    public boolean canMoveTo(CheckpointState next) {
        return NEXT.get(this).contains(next);
    }

    /** {@code next}, if the table allows it from here; a move it forbids is a bug in the caller. */
    public CheckpointState moveTo(CheckpointState next) {
        if (!canMoveTo(next)) {
            throw new IllegalStateException("a " + wire() + " checkpoint cannot become " + next.wire());
        }
        return next;
    }

    /** The wire form, so that messages read as the API speaks. */
    @Override
    public String toString() {
        return wire();
    }

    public static CheckpointState of(String wire) {
        return WireName.parse(CheckpointState.class, wire);
    }
}
