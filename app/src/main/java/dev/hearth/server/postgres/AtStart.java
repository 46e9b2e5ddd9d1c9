package dev.hearth.server.postgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Statements a stopped cluster runs at its next start before anyone may log in over TCP (a branch's
 * new password): that start loads rules that let only the postgres role in, over the private socket;
 * the statements run; then the shared rules are loaded. It costs two short sessions at that start,
 * where a single-user PostgreSQL ({@code postgres --single}) would cost a start of its own, and a
 * crash recovery, now.
 */
final class AtStart {
    private static final String STATEMENTS = "hearth-at-start.sql";
    private static final String RULES = "hearth-start-hba.conf";
    private static final Duration RELOAD_LIMIT = Duration.ofSeconds(5);

    private AtStart() {
    }

    /** Appends {@code statement}: one added later (a reset while it sleeps) runs after those before it. */
    static void add(Path data, String statement) throws IOException {
        Files.writeString(data.resolve(STATEMENTS), statement + "\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    static boolean pending(Path data) {
        return Files.exists(data.resolve(STATEMENTS));
    }

    /** Writes the rules this start loads, {@code closed} (no TCP), where the cluster's OS user can read them. */
    static Path closedRules(Path data, String closed, PostgresHost host) throws IOException {
        Path rules = data.resolve(RULES);
        Files.writeString(rules, closed);
        host.giveToClusterUser(rules);
        return rules;
    }

    /** A new session on the cluster, over its private socket. */
    interface Sessions {
        Connection open() throws SQLException;
    }

    /**
     * Runs the statements on the cluster just started with {@link #closedRules}, has it load {@code open}
     * instead and waits until new sessions get them (a reload is the postmaster's to do once asked).
     */
    static void run(Path data, String open, Sessions sessions) throws IOException, SQLException {
        Path statements = data.resolve(STATEMENTS);
        // Read at the reload only: until then the closed rules hold.
        Files.writeString(data.resolve(RULES), open);
        String before;
        try (var session = sessions.open(); var statement = session.createStatement()) {
            // One transaction: one commit (one flush of the WAL through the disk's loop device), not one a statement.
            statement.execute("BEGIN;\n" + Files.readString(statements) + "COMMIT;");
            try (var rows = statement.executeQuery("SELECT pg_conf_load_time()::text, pg_reload_conf()")) {
                rows.next();
                before = rows.getString(1);
            }
        }
        Files.delete(statements);
        long deadline = System.nanoTime() + RELOAD_LIMIT.toNanos();
        while (!reloadedSince(sessions, before)) {
            if (System.nanoTime() > deadline) {
                throw new IOException("the cluster did not load its rules in " + RELOAD_LIMIT.toSeconds() + " s");
            }
        }
    }

    /** Asked in a new session: one forked before the reload keeps the rules it was born with. */
    private static boolean reloadedSince(Sessions sessions, String before) throws SQLException {
        try (var session = sessions.open();
             var query = session.prepareStatement("SELECT pg_conf_load_time() > ?::timestamptz")) {
            query.setString(1, before);
            try (var rows = query.executeQuery()) {
                rows.next();
                return rows.getBoolean(1);
            }
        }
    }
}
