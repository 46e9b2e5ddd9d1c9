package dev.hearth.server.sandbox;

import java.util.Locale;

/** What the runtime says of a sandbox: runsc's statuses, the words it writes in its state files and lists. */
public enum SandboxStatus {
    CREATING, CREATED, RUNNING, PAUSED, STOPPED;

    /** The status runsc names {@code word} ("running"); IllegalArgumentException for a word runsc does not use. */
    public static SandboxStatus of(String word) {
        return valueOf(word.toUpperCase(Locale.ROOT));
    }

    /** Running, or paused (a checkpoint pauses a sandbox for its save): the sandbox and its processes live. */
    public boolean alive() {
        return this == RUNNING || this == PAUSED;
    }

    /** runsc's word for it. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }
}
