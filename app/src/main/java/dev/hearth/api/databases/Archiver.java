package dev.hearth.api.databases;

import java.time.Instant;

/**
 * The WAL archiver's last success and failure ({@code pg_stat_archiver}): {@code failing} when the
 * last attempt failed (a full volume, say), so WAL waits in {@code pg_wal} instead of being archived.
 */
public record Archiver(boolean failing, Instant lastArchivedAt, Instant lastFailedAt, String lastFailedWal) {
}
