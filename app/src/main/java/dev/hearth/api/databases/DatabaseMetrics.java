package dev.hearth.api.databases;

import java.time.Instant;

/**
 * What a database uses now: sessions on its cluster ({@code null} asleep: none can exist, and asking
 * would wake it), the bytes of its data directory, asleep or not, and (awake) how its WAL archiving
 * goes: a failing archive keeps WAL on the database's WAL disk and stops its history from growing.
 */
public record DatabaseMetrics(String database, DatabaseState state, Integer connections, long sizeBytes,
                              Archiver archiving, Instant measuredAt) {
}
