package dev.hearth.api.computers;

import java.time.Instant;

/** One sample: {@code cpuPercent} of the computer's CPUs since the sample before (null for the first). */
public record Sample(Instant at, double cpuSeconds, Double cpuPercent, long memoryBytes, long memoryLimitBytes,
                     long diskUsedBytes, Long diskSizeBytes) {
}
