package dev.hearth.server.computers;

import java.time.Duration;

/**
 * How computers sleep: warm (frozen in memory) for {@code warmFor} before they go cold (to disk), zero
 * meaning cold at once; and sooner, oldest first, while the host's available memory is under
 * {@code memoryReserveBytes}. Before any sleep, a ready computer idle for {@code freezeIdleAfter}
 * (zero: never) is frozen while it stays ready to its users (see {@link Dozes}).
 */
public record SleepSettings(Duration warmFor, long memoryReserveBytes, Duration freezeIdleAfter) {
    public static final Duration DEFAULT_WARM = Duration.ofMinutes(5);
    public static final Duration DEFAULT_FREEZE_IDLE_AFTER = Duration.ofSeconds(10);

    public SleepSettings(Duration warmFor, long memoryReserveBytes) {
        this(warmFor, memoryReserveBytes, DEFAULT_FREEZE_IDLE_AFTER);
    }

    public SleepSettings {
        if (freezeIdleAfter.isNegative()) {
            throw new IllegalArgumentException("the idle time before a freeze cannot be negative");
        }
        if (warmFor.isNegative()) {
            throw new IllegalArgumentException("the warm sleep period cannot be negative");
        }
        if (memoryReserveBytes < 0) {
            throw new IllegalArgumentException("the memory reserve cannot be negative");
        }
    }

    /** Five minutes warm; a tenth of the host's memory kept free. */
    public static SleepSettings defaults() {
        return new SleepSettings(DEFAULT_WARM, HostMemory.total() / 10);
    }

    /** This server's settings with computers frozen after {@code after} idle (zero: never). */
    public SleepSettings freezingIdleAfter(Duration after) {
        return new SleepSettings(warmFor, memoryReserveBytes, after);
    }

    boolean warm() {
        return !warmFor.isZero();
    }
}
