package dev.hearth.api.checkpoints;

import dev.hearth.api.WireName;

/**
 * What a checkpoint is of, and so how consistent it is: a computer's is taken of a paused sandbox
 * without asking its programs to flush anything ({@code crash}); a database's is a clean copy of a
 * stopped cluster or an online base backup, both starting without losing a committed transaction.
 */
public enum SourceType implements WireName {
    COMPUTER(Consistency.CRASH), DATABASE(Consistency.CONSISTENT);

    /** How much of its programs' state a checkpoint holds: as after a crash, or all that was committed. */
    public enum Consistency implements WireName {
        CRASH, CONSISTENT
    }

    private final Consistency consistency;

    SourceType(Consistency consistency) {
        this.consistency = consistency;
    }

    public Consistency consistency() {
        return consistency;
    }

    /** The wire form, so that messages read as the API speaks. */
    @Override
    public String toString() {
        return wire();
    }

    public static SourceType of(String wire) {
        return WireName.parse(SourceType.class, wire);
    }
}
