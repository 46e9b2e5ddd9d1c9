package dev.hearth.server.postgres;

import dev.hearth.api.Required;
import dev.hearth.api.SchemaName;
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

    /** A login role of the cluster; {@code owner} for the role its Hearth database's connection names. */
    @SchemaName("DatabaseRole")
    public record Role(@Required String name, boolean owner) {
    }

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
    public static List<Role> list(Cluster cluster, String owner) {
        return in(cluster, session -> {
            var roles = new ArrayList<Role>();
            try (var rows = session.createStatement().executeQuery("SELECT rolname FROM pg_roles WHERE rolcanlogin "
                    + "AND NOT rolsuper AND rolname !~ '^pg_' AND rolname <> 'pgbouncer' ORDER BY rolname")) {
                while (rows.next()) {
                    roles.add(new Role(rows.getString(1), rows.getString(1).equals(owner)));
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
     * Drops a role and ends its sessions; refused (2BP01) while it owns objects or holds privileges
     * in any of the cluster's databases, with PostgreSQL's reason.
     */
    public static void drop(Cluster cluster, String role) {
        in(cluster, session -> {
            try (var statement = session.createStatement()) {
                long oid;
                try (var rows = statement.executeQuery("SELECT oid FROM pg_roles WHERE rolname = " + Clusters.literal(role))) {
                    rows.next();
                    oid = rows.getLong(1);
                }
                statement.execute("DROP ROLE " + Clusters.ident(role));
                // By its oid: a dropped role's sessions show no user name.
                statement.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usesysid = " + oid);
            }
            return null;
        });
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

    /** A database of the cluster: its name, its owner role, and whether it is the one connections name. */
    @SchemaName("PgDatabase")
    public record PgDatabase(@Required String name, @Required String ownerName,
                             @com.fasterxml.jackson.annotation.JsonProperty("default") boolean defaultDatabase) {
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
