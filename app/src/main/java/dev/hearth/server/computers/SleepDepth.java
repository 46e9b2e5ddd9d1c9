package dev.hearth.server.computers;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Which warm sleepers go cold now: every one warm for the whole warm period and, while the host's
 * available memory is under the reserve, the one asleep longest of the others (one a pass, so that
 * what each frees is seen before the next goes).
 */
final class SleepDepth {
    private final SleepSettings settings;
    private final LongSupplier availableMemory;

    SleepDepth(SleepSettings settings, LongSupplier availableMemory) {
        this.settings = settings;
        this.availableMemory = availableMemory;
    }

    List<Computer> due(List<Computer> live, Instant now) {
        var warm = live.stream().filter(c -> c.phase() == Phase.ASLEEP_WARM)
                .sorted(Comparator.comparing(c -> c.sleep().since())).toList();
        var due = new ArrayList<Computer>();
        for (var c : warm) {
            if (!c.sleep().since().plus(settings.warmFor()).isAfter(now)) {
                due.add(c);
            }
        }
        if (due.size() < warm.size() && availableMemory.getAsLong() < settings.memoryReserveBytes()) {
            warm.stream().filter(c -> !due.contains(c)).findFirst().ifPresent(due::add);
        }
        return due;
    }
}
