package dev.hearth.server.postgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * Statements a stopped cluster runs at its next start before anyone may log in over TCP (a branch's
 * new password): that start loads rules that let only the postgres role in, over the private socket;
 * the statements run; then the shared rules are loaded. It costs two psql runs at that start, where
 * a single-user PostgreSQL ({@code postgres --single}) would cost a start of its own, and a crash
 * recovery, now.
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

    /**
     * Runs the statements on the cluster just started with {@link #closedRules}, has it load {@code open}
     * instead and makes sure new sessions get them: a reload is the postmaster's to do once asked, so a
     * new session of the same psql run looks (and, should it be early, new runs look again).
     */
    static void run(Path data, String open, UnaryOperator<String> psql) throws IOException {
        Path statements = data.resolve(STATEMENTS);
        // Read at the reload only: until then the closed rules hold.
        Files.writeString(data.resolve(RULES), open);
        String loaded = psql.apply(Files.readString(statements) + """
                SELECT pg_conf_load_time() AS before, pg_reload_conf() \\gset
                \\connect
                SELECT pg_conf_load_time() > :'before'::timestamptz, :'before';
                """);
        Files.delete(statements);
        String[] answer = lastLine(loaded).split("\\|");
        long deadline = System.nanoTime() + RELOAD_LIMIT.toNanos();
        while (!answer[0].equals("t")) {
            if (System.nanoTime() > deadline || answer.length < 2) {
                throw new IOException("the cluster did not load its rules in " + RELOAD_LIMIT.toSeconds() + " s");
            }
            answer = new String[] {lastLine(psql.apply("SELECT pg_conf_load_time() > '" + answer[1]
                    + "'::timestamptz;")), answer[1]};
        }
    }

    private static String lastLine(String output) {
        var lines = output.strip().lines().toList();
        return lines.isEmpty() ? "" : lines.getLast();
    }
}
