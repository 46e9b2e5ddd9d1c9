package dev.hearth.server.postgres;

import dev.hearth.api.databases.DatabaseStatement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Which statements a database spends its time on, from contrib's {@code pg_stat_statements}: loaded
 * into every cluster at start (when the server's PostgreSQL has it), its view made on first use in the
 * cluster's {@code postgres} database. Its counts are saved at a clean shutdown, so a database's sleep
 * keeps them; a crash loses them. Hearth's own sessions (the superuser, the pooler) are left out.
 */
public final class Insights {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    /** How a list is ordered: by the time all calls took, or by the time one call takes. */
    public enum Order { TOTAL, MEAN }

    private Insights() {
    }

    /** The settings that load it, when {@code bin}'s PostgreSQL has it. */
    static List<String> loading(Path bin) {
        boolean installed = Files.exists(bin.getParent().getParent().resolve("lib").resolve("pg_stat_statements.so"));
        return installed ? List.of("-c", "shared_preload_libraries=pg_stat_statements") : List.of();
    }

    public static List<DatabaseStatement> top(Cluster cluster, Order order, int limit) {
        return PrivateSessions.with(cluster, LIMIT, session -> {
            try (var statement = session.createStatement()) {
                statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            }
            try (var query = session.prepareStatement("SELECT s.query, s.calls, s.total_exec_time, s.mean_exec_time, s.rows "
                    + "FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid "
                    + "WHERE r.rolname NOT IN ('postgres', 'pgbouncer') ORDER BY "
                    + (order == Order.MEAN ? "s.mean_exec_time" : "s.total_exec_time") + " DESC LIMIT ?")) {
                query.setInt(1, limit);
                var found = new ArrayList<DatabaseStatement>();
                try (var rows = query.executeQuery()) {
                    while (rows.next()) {
                        found.add(new DatabaseStatement(rows.getString(1), rows.getLong(2), rows.getDouble(3), rows.getDouble(4),
                                rows.getLong(5)));
                    }
                }
                return found;
            } catch (SQLException e) {
                if ("55000".equals(e.getSQLState())) {
                    return List.of(); // not loaded: a cluster started before it was, or a PostgreSQL without it
                }
                throw e;
            }
        });
    }
}
