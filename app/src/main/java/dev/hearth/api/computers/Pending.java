package dev.hearth.api.computers;

import dev.hearth.api.WireName;

/**
 * A change under way that outlives one request: a move to sleep (the {@code computer.sleep}
 * operation), a restore from a checkpoint, or a delete (marked before anything is removed, so that
 * reconcile finishes a delete a crash cut short rather than starting a half-removed computer). The supervisor leaves a computer with one alone, and
 * reconcile settles one that a crash cut short.
 */
public enum Pending implements WireName {
    SLEEPING, RESTORING, DELETING;

    @Override
    public String toString() {
        return wire();
    }

    /** The stored form back; null stays null (nothing pending). */
    public static Pending of(String wire) {
        return wire == null ? null : WireName.parse(Pending.class, wire);
    }
}
