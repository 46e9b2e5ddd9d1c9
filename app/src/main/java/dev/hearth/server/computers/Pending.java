package dev.hearth.server.computers;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * A change under way that outlives one request: a move to sleep (the {@code computer.sleep}
 * operation), or a restore from a checkpoint. The supervisor leaves a computer with one alone, and
 * reconcile settles one that a crash cut short.
 */
public enum Pending {
    SLEEPING, RESTORING;

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return wire();
    }

    /** The stored form back; null stays null (nothing pending). */
    public static Pending of(String wire) {
        return wire == null ? null : valueOf(wire.toUpperCase(Locale.ROOT));
    }
}
