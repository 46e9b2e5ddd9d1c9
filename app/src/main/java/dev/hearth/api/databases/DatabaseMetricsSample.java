package dev.hearth.api.databases;

import java.time.Instant;

/** One sample; {@code transactionsPerSecond} is null for the first of a run of the cluster. */
public record DatabaseMetricsSample(Instant at, int connections, Double transactionsPerSecond, long sizeBytes) {
}
