package dev.hearth.server.databases;

import java.time.Instant;

/**
 * What a database uses now: sessions on its cluster ({@code null} asleep: none can exist, and asking
 * would wake it) and the bytes of its data directory, asleep or not.
 */
public record DatabaseMetrics(String database, DatabaseState state, Integer connections, long sizeBytes,
                              Instant measuredAt) {
}
