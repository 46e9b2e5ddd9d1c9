package dev.hearth.api.computers;

import dev.hearth.api.WireName;

/**
 * How deeply a computer sleeps. Warm: its sandbox is frozen where it stands, memory kept in RAM, no
 * CPU used; a wake thaws it in milliseconds. Cold: memory and overlay are checkpointed to disk and the
 * sandbox is gone, so it costs no memory; a wake restores it. A computer goes warm at once and cold
 * after the server's warm period, or sooner when the host runs short of memory.
 */
public enum SleepMode implements WireName {
    WARM, COLD;

    @Override
    public String toString() {
        return wire();
    }

    /** The stored form back; null (a sleeper from before sleep had depths) was cold. */
    public static SleepMode of(String wire) {
        return wire == null ? COLD : WireName.parse(SleepMode.class, wire);
    }
}
