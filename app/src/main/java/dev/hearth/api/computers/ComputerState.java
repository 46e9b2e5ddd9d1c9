package dev.hearth.api.computers;

import dev.hearth.api.WireName;

/**
 * Where a computer is in its life, as the API shows it. What each state allows is the server's
 * (its {@code Phase} table, which also knows a move under way, the sleep's depth and deletion).
 */
public enum ComputerState implements WireName {
    CREATING, READY, SLEEPING, FAILED;

    /** The wire form, so that messages read as the API speaks. */
    @Override
    public String toString() {
        return wire();
    }

    public static ComputerState of(String wire) {
        return WireName.parse(ComputerState.class, wire);
    }
}
