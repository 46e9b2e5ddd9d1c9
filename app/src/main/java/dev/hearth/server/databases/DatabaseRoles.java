package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.databases.Connection;
import dev.hearth.api.databases.CreateDatabaseRole;
import dev.hearth.api.databases.CreatePgDatabase;
import dev.hearth.api.databases.DatabaseRole;
import dev.hearth.api.databases.PgDatabase;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.postgres.Cluster;
import dev.hearth.server.postgres.ClusterRoles;
import dev.hearth.server.postgres.Scram;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL roles and databases inside one Hearth database, as Neon keeps them on a branch:
 * they live in its cluster (so sleep, checkpoints, branches and restores keep them), and every call
 * wakes a sleeping database, as a client would. The owner role (the one its connection names) and
 * the default database cannot be deleted; a new role's password is shown once.
 */
public final class DatabaseRoles {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseRoles.class);
    // Lower-case PostgreSQL identifiers a URI, a shell and the pooler take unquoted, as database names are.
    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_-]{0,62}");
    private static final Set<String> RESERVED_ROLES = Set.of("postgres", "pgbouncer", "public", "none",
            "current_user", "current_role", "session_user");
    private static final Set<String> RESERVED_DATABASES = Set.of("postgres", "template0", "template1");
    private final DatabaseService service;

    /** A role with its new password, and how it connects to the default database (directly and pooled). */
    record WithPassword(DatabaseRole role, Connection connection) {
    }

    DatabaseRoles(DatabaseService service) {
        this.service = service;
    }

    public List<DatabaseRole> list(Workspace workspace, String ref) {
        return inCluster(workspace, ref, (db, cluster) -> ClusterRoles.list(cluster, db.login().user()));
    }

    public WithPassword create(Workspace workspace, String ref, CreateDatabaseRole request) {
        String name = roleName("name", request.name());
        String password = Scram.newPassword();
        return inCluster(workspace, ref, (db, cluster) -> {
            refused(() -> ClusterRoles.create(cluster, name, Scram.verifier(password)), Map.of("42710",
                    ApiException.conflict("a role named " + name + " already exists in database " + db.name())));
            LOG.info("database {} ({}): role {} created", db.name(), db.id(), name);
            return new WithPassword(new DatabaseRole(name, false), connection(db, name, password));
        });
    }

    /**
     * A new password for the role, its sessions ended. The owner role's is the database's credential
     * reset (so Hearth's connection details stay true).
     */
    public WithPassword resetPassword(Workspace workspace, String ref, String role) {
        var db = service.live(workspace, ref);
        requireNamed(db, "role", role);
        if (role.equals(db.login().user())) {
            var reset = service.resetCredentials(workspace, ref);
            return new WithPassword(new DatabaseRole(role, true), reset);
        }
        String password = Scram.newPassword();
        return inCluster(workspace, ref, (live, cluster) -> {
            requireRole(cluster, live, role);
            service.host().engine().clusters().setPassword(cluster, role, Scram.verifier(password));
            LOG.info("database {} ({}): role {}'s password reset", live.name(), live.id(), role);
            return new WithPassword(new DatabaseRole(role, false), connection(live, role, password));
        });
    }

    /** Drops the role and the privileges granted to it, its sessions ended; refused for the owner role, and while it owns anything. */
    public DatabaseRole delete(Workspace workspace, String ref, String role) {
        requireNamed(service.live(workspace, ref), "role", role);
        return inCluster(workspace, ref, (db, cluster) -> {
            if (role.equals(db.login().user())) {
                throw new ApiException(ErrorCode.PROTECTED, "role " + role + " is the owner role of database "
                        + db.name() + " (its connection's); it cannot be deleted");
            }
            requireRole(cluster, db, role);
            refused(() -> ClusterRoles.drop(cluster, role), Map.of());
            LOG.info("database {} ({}): role {} deleted", db.name(), db.id(), role);
            return new DatabaseRole(role, false);
        });
    }

    public List<PgDatabase> databases(Workspace workspace, String ref) {
        return inCluster(workspace, ref, (db, cluster) -> ClusterRoles.databases(cluster, db.login().dbName()));
    }

    public PgDatabase createDatabase(Workspace workspace, String ref, CreatePgDatabase request) {
        String name = databaseName(request.name());
        return inCluster(workspace, ref, (db, cluster) -> {
            String owner = request.ownerName() == null ? db.login().user() : roleName("owner_name", request.ownerName());
            if (!ClusterRoles.exists(cluster, owner)) {
                throw ApiException.invalidField("owner_name", "no role named " + owner + " in database " + db.name());
            }
            refused(() -> ClusterRoles.createDatabase(cluster, name, owner), Map.of("42P04",
                    ApiException.conflict("a database named " + name + " already exists in database " + db.name())));
            LOG.info("database {} ({}): PostgreSQL database {} created, owned by {}", db.name(), db.id(), name, owner);
            return new PgDatabase(name, owner, false);
        });
    }

    /** Drops a database (its sessions end); refused for the default one. */
    public PgDatabase deleteDatabase(Workspace workspace, String ref, String name) {
        requireNamed(service.live(workspace, ref), "PostgreSQL database", name);
        return inCluster(workspace, ref, (db, cluster) -> {
            if (name.equals(db.login().dbName())) {
                throw new ApiException(ErrorCode.PROTECTED, "database " + name + " is the default database of "
                        + db.name() + " (its connection's); it cannot be deleted");
            }
            var found = ClusterRoles.databases(cluster, db.login().dbName()).stream()
                    .filter(d -> d.name().equals(name)).findFirst()
                    .orElseThrow(() -> ApiException.notFound("PostgreSQL database " + name + " in " + db.name()));
            refused(() -> ClusterRoles.dropDatabase(cluster, name), Map.of());
            LOG.info("database {} ({}): PostgreSQL database {} deleted", db.name(), db.id(), name);
            return found;
        });
    }

    /** Work on the database's running cluster, woken first, under the database's lock. */
    private <T> T inCluster(Workspace workspace, String ref, Work<T> work) {
        var db = service.live(workspace, ref);
        var supervisor = service.host().supervisor();
        return service.locked(db.id(), () -> {
            supervisor.start(db.id());
            return work.run(db, supervisor.cluster(db.id()));
        });
    }

    private interface Work<T> {
        T run(Database db, Cluster cluster);
    }

    /** A name no role or database here can have is not there: 404 before any wake. */
    private static void requireNamed(Database db, String what, String name) {
        if (!NAME.matcher(name).matches()) {
            throw ApiException.notFound(what + " " + name + " in database " + db.name());
        }
    }

    private static void requireRole(Cluster cluster, Database db, String role) {
        if (RESERVED_ROLES.contains(role) || role.startsWith("pg_") || !ClusterRoles.exists(cluster, role)) {
            throw ApiException.notFound("role " + role + " in database " + db.name());
        }
    }

    /** PostgreSQL's refusal as the answer {@code known} maps its SQLSTATE to, else 409 with its reason. */
    private static void refused(Runnable sql, Map<String, ApiException> known) {
        try {
            sql.run();
        } catch (ClusterRoles.Refused e) {
            throw known.getOrDefault(e.sqlState(), ApiException.conflict(e.getMessage()));
        }
    }

    private Connection connection(Database db, String role, String password) {
        var engine = service.host().engine();
        return db.connection(role, password, engine.pooler().port(), db.id(), engine.caPem());
    }

    static String roleName(String field, String name) {
        checkName(field, name);
        if (RESERVED_ROLES.contains(name) || name.startsWith("pg_")) {
            throw ApiException.invalidField(field, name + " is reserved (PostgreSQL's or Hearth's own)");
        }
        return name;
    }

    static String databaseName(String name) {
        checkName("name", name);
        if (RESERVED_DATABASES.contains(name) || name.startsWith("pg_")) {
            throw ApiException.invalidField("name", name + " is reserved (PostgreSQL's or Hearth's own)");
        }
        return name;
    }

    private static void checkName(String field, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw ApiException.invalidField(field, "1 to 63 lower-case letters, digits, '_' and '-', "
                    + "starting with a letter or '_'");
        }
    }
}
