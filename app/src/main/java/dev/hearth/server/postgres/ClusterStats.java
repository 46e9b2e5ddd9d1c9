package dev.hearth.server.postgres;

import dev.hearth.api.databases.Archiver;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * What Hearth reads of a running cluster over its private socket, as its superuser: sessions and
 * transactions (metrics), the WAL archiver's state, and where its WAL and redo point are (bases).
 */
public final class ClusterStats {
    private static final Duration LIMIT = Duration.ofSeconds(120);
    /** Sessions of clients (the pooler's among them), not counting the asking session itself. */
    private static final String CLIENT_SESSIONS = "SELECT count(*) FROM pg_stat_activity "
            + "WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()";

    private ClusterStats() {
    }

    /** Client sessions now and transactions ended since the cluster started (its own session's included). */
    public record Activity(int connections, long transactions) {
    }

    public static Activity activity(Cluster cluster) {
        return PrivateSessions.with(cluster, LIMIT, session -> {
            try (var rows = session.createStatement().executeQuery("SELECT (" + CLIENT_SESSIONS + "), "
                    + "(SELECT coalesce(sum(xact_commit + xact_rollback), 0) FROM pg_stat_database)")) {
                rows.next();
                return new Activity(rows.getInt(1), rows.getLong(2));
            }
        });
    }

    /** What a database's metrics show of its running cluster: client sessions and the archiver, in one session. */
    public record Now(int connections, Archiver archiving) {
    }

    public static Now now(Cluster cluster) {
        return PrivateSessions.with(cluster, LIMIT, session -> {
            try (var rows = session.createStatement().executeQuery(CLIENT_SESSIONS)) {
                rows.next();
                return new Now(rows.getInt(1), archiver(session));
            }
        });
    }

    public static Archiver archiver(Cluster cluster) {
        return PrivateSessions.with(cluster, LIMIT, ClusterStats::archiver);
    }

    private static Archiver archiver(Connection session) throws SQLException {
        try (var rows = session.createStatement().executeQuery(
                "SELECT last_archived_time, last_failed_time, last_failed_wal FROM pg_stat_archiver")) {
            rows.next();
            var archived = rows.getTimestamp(1);
            var failed = rows.getTimestamp(2);
            Instant archivedAt = archived == null ? null : archived.toInstant();
            Instant failedAt = failed == null ? null : failed.toInstant();
            boolean failing = failedAt != null && (archivedAt == null || failedAt.isAfter(archivedAt));
            return new Archiver(failing, archivedAt, failedAt, rows.getString(3));
        }
    }

    /** Where a recovery from a copy made now would start: the WAL file of the redo point, and the current LSN. */
    public record Redo(String walFile, String lsn) {
    }

    /** A checkpoint first (so that a copy made next replays little), then where its redo starts. */
    public static Redo checkpointed(Cluster cluster) {
        return PrivateSessions.with(cluster, LIMIT, session -> {
            try (var statement = session.createStatement()) {
                statement.execute("CHECKPOINT");
                try (var rows = statement.executeQuery("SELECT pg_walfile_name(redo_lsn), pg_current_wal_lsn()::text "
                        + "FROM pg_control_checkpoint()")) {
                    rows.next();
                    return new Redo(rows.getString(1), rows.getString(2));
                }
            }
        });
    }

    /** Where the cluster's WAL is now (PostgreSQL's X/Y form). */
    public static String currentLsn(Cluster cluster) {
        return PrivateSessions.with(cluster, LIMIT, session -> {
            try (var rows = session.createStatement().executeQuery("SELECT pg_current_wal_lsn()::text")) {
                rows.next();
                return rows.getString(1);
            }
        });
    }
}
