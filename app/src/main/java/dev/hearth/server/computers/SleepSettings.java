package dev.hearth.server.computers;

import java.time.Duration;

/**
 * How computers sleep: warm (frozen in memory) for {@code warmFor} before they go cold (to disk), zero
 * meaning cold at once; and sooner, oldest first, while the host's available memory is under
 * {@code memoryReserveBytes}.
 */
public record SleepSettings(Duration warmFor, long memoryReserveBytes) {
    public static final Duration DEFAULT_WARM = Duration.ofMinutes(5);

    public SleepSettings {
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

    boolean warm() {
        return !warmFor.isZero();
    }
}
