package dev.hearth.server.postgres;

import dev.hearth.api.databases.DatabaseRole;
import dev.hearth.api.databases.PgDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The login roles and databases users keep in a running cluster, changed over its private socket as
 * the postgres role. Hearth's own roles ({@code postgres}, {@code pgbouncer}) and PostgreSQL's
 * ({@code pg_*}) are never listed or touched. Roles are made as the owner role is: they log in
 * (over TLS with SCRAM, directly or through the pooler, whose lookup finds any non-superuser login
 * role) and may create databases; none is a superuser, and none may create roles: PostgreSQL 15's
 * CREATEROLE could grant itself {@code pg_execute_server_program} (commands as the clusters' OS
 * user) or set the pooler role's password. Names are always quoted, passwords sent as SCRAM
 * verifiers only.
 */
public final class ClusterRoles {
    private static final Duration LIMIT = Duration.ofSeconds(30);
    static final String ATTRIBUTES = "LOGIN NOSUPERUSER CREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT";

    /** What PostgreSQL refused, with its SQLSTATE and its reason (its detail appended). */
    public static final class Refused extends RuntimeException {
        private final String sqlState;

        Refused(SQLException e) {
            super(reason(e));
            this.sqlState = e.getSQLState();
        }

        public String sqlState() {
            return sqlState;
        }

        private static String reason(SQLException e) {
            var server = e instanceof org.postgresql.util.PSQLException p ? p.getServerErrorMessage() : null;
            if (server == null) {
                return e.getMessage();
            }
            return server.getMessage() + (server.getDetail() == null ? "" : " (" + server.getDetail() + ")");
        }
    }

    private ClusterRoles() {
    }

    /** The users' login roles, by name, {@code owner} the one flagged. */
    public static List<DatabaseRole> list(Cluster cluster, String owner) {
        return in(cluster, session -> {
            var roles = new ArrayList<DatabaseRole>();
            try (var rows = session.createStatement().executeQuery("SELECT rolname FROM pg_roles WHERE rolcanlogin "
                    + "AND NOT rolsuper AND rolname !~ '^pg_' AND rolname <> 'pgbouncer' ORDER BY rolname")) {
                while (rows.next()) {
                    roles.add(new DatabaseRole(rows.getString(1), rows.getString(1).equals(owner)));
                }
            }
            return roles;
        });
    }

    public static boolean exists(Cluster cluster, String role) {
        return in(cluster, session -> exists(session, role));
    }

    /** Makes a login role with the password behind {@code verifier}; 42710 refused when the name is taken. */
    public static void create(Cluster cluster, String role, String verifier) {
        in(cluster, session -> {
            try (var statement = session.createStatement()) {
                statement.execute("CREATE ROLE " + Clusters.ident(role) + " " + ATTRIBUTES + " PASSWORD "
                        + Clusters.literal(verifier));
            }
            return null;
        });
    }

    /**
     * Drops a role: refused (2BP01, PostgreSQL's reason) while it owns anything in any of the cluster's
     * databases; the privileges granted to it are revoked ({@code DROP OWNED BY} in each database that
     * holds some, once nothing is owned). Its sessions end first and it may not log in meanwhile, so that
     * it cannot make an object between the check and the revoke; a refused drop gives its login back.
     */
    public static void drop(Cluster cluster, String role) {
        String name = Clusters.ident(role);
        var places = in(cluster, session -> {
            long oid = oid(session, role);
            if (owns(session, oid)) {
                dropRole(session, name); // refused with PostgreSQL's reason
            }
            try (var statement = session.createStatement()) {
                statement.execute("ALTER ROLE " + name + " NOLOGIN");
                statement.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usesysid = " + oid);
            }
            if (owns(session, oid)) {
                try (var statement = session.createStatement()) {
                    statement.execute("ALTER ROLE " + name + " LOGIN");
                }
                dropRole(session, name);
            }
            return grantedIn(session, oid);
        });
        for (String database : places) {
            PrivateSessions.with(cluster, LIMIT, database, session -> {
                try (var statement = session.createStatement()) {
                    statement.execute("DROP OWNED BY " + name);
                }
                return null;
            });
        }
        in(cluster, session -> {
            try {
                dropRole(session, name);
            } catch (SQLException e) {
                try (var statement = session.createStatement()) {
                    statement.execute("ALTER ROLE " + name + " LOGIN");
                }
                throw e;
            }
            return null;
        });
    }

    private static long oid(Connection session, String role) throws SQLException {
        try (var query = session.prepareStatement("SELECT oid FROM pg_roles WHERE rolname = ?")) {
            query.setString(1, role);
            try (var rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    /** Whether the role owns an object in any database, or a database (pg_shdepend: shared by all). */
    private static boolean owns(Connection session, long oid) throws SQLException {
        try (var rows = session.createStatement().executeQuery("SELECT 1 FROM pg_shdepend WHERE refclassid = "
                + "'pg_authid'::regclass AND refobjid = " + oid + " AND deptype = 'o' LIMIT 1")) {
            return rows.next();
        }
    }

    /** The databases where privileges are granted to it (those of shared objects: postgres). */
    private static List<String> grantedIn(Connection session, long oid) throws SQLException {
        var found = new ArrayList<String>();
        try (var rows = session.createStatement().executeQuery("SELECT DISTINCT coalesce(d.datname, 'postgres') "
                + "FROM pg_shdepend s LEFT JOIN pg_database d ON d.oid = s.dbid WHERE s.refclassid = "
                + "'pg_authid'::regclass AND s.refobjid = " + oid + " AND (d.oid IS NULL OR d.datallowconn)")) {
            while (rows.next()) {
                found.add(rows.getString(1));
            }
        }
        return found;
    }

    private static void dropRole(Connection session, String name) throws SQLException {
        try (var statement = session.createStatement()) {
            statement.execute("DROP ROLE " + name);
        }
    }

    /** The cluster's databases (not its templates, not Hearth's {@code postgres}), each with its owner. */
    public static List<PgDatabase> databases(Cluster cluster, String defaultDatabase) {
        return in(cluster, session -> {
            var found = new ArrayList<PgDatabase>();
            try (var rows = session.createStatement().executeQuery("SELECT d.datname, r.rolname FROM pg_database d "
                    + "JOIN pg_roles r ON r.oid = d.datdba WHERE NOT d.datistemplate AND d.datname <> 'postgres' "
                    + "ORDER BY d.datname")) {
                while (rows.next()) {
                    found.add(new PgDatabase(rows.getString(1), rows.getString(2),
                            rows.getString(1).equals(defaultDatabase)));
                }
            }
            return found;
        });
    }

    /** Makes a database owned by {@code owner}; 42P04 refused when the name is taken. */
    public static void createDatabase(Cluster cluster, String name, String owner) {
        in(cluster, session -> {
            try (var statement = session.createStatement()) {
                statement.execute("CREATE DATABASE " + Clusters.ident(name) + " OWNER " + Clusters.ident(owner));
            }
            return null;
        });
    }

    /** Drops a database, ending the sessions in it first (PostgreSQL's FORCE). */
    public static void dropDatabase(Cluster cluster, String name) {
        in(cluster, session -> {
            try (var statement = session.createStatement()) {
                statement.execute("DROP DATABASE " + Clusters.ident(name) + " WITH (FORCE)");
            }
            return null;
        });
    }

    private static boolean exists(Connection session, String role) throws SQLException {
        try (var query = session.prepareStatement("SELECT 1 FROM pg_roles WHERE rolname = ?")) {
            query.setString(1, role);
            try (var rows = query.executeQuery()) {
                return rows.next();
            }
        }
    }

    /** Work in a private session; what PostgreSQL refuses of users' names and objects reaches the caller as {@link Refused}. */
    private static <T> T in(Cluster cluster, PrivateSessions.Work<T> work) {
        return PrivateSessions.with(cluster, LIMIT, session -> {
            try {
                return work.run(session);
            } catch (SQLException e) {
                String state = String.valueOf(e.getSQLState());
                // 42xxx: names taken or missing; 2BP01: objects depend on it; 55006: in use.
                if (state.startsWith("42") || state.equals("2BP01") || state.equals("55006")) {
                    throw new Refused(e);
                }
                throw e;
            }
        });
    }
}
