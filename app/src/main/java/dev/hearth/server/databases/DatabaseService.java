package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Validate;
import dev.hearth.api.databases.Connection;
import dev.hearth.api.databases.CreateDatabase;
import dev.hearth.api.databases.DatabaseState;
import dev.hearth.api.databases.SqlQuery;
import dev.hearth.api.databases.SqlResult;
import dev.hearth.api.databases.UpdateDatabase;
import dev.hearth.api.tenancy.Role;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.checkpoints.CheckpointStore;
import dev.hearth.server.crypto.Keyring;
import dev.hearth.server.metrics.Timings;
import dev.hearth.server.network.DirectPorts;
import dev.hearth.server.network.Firewall;
import dev.hearth.server.nodes.DatabaseCargo;
import dev.hearth.server.nodes.LocalNode;
import dev.hearth.server.nodes.Shipments;
import dev.hearth.server.postgres.Scram;
import dev.hearth.server.store.Constraints;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.tenancy.Action;
import dev.hearth.server.workspaces.Contents;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules of databases: create (from the template, or as a branch of a checkpoint), read (the
 * store only: a read never wakes or touches a cluster), change, delete, connection details,
 * credential resets, sleep and wake. What runs the clusters is the {@link DatabaseHost}'s.
 */
public final class DatabaseService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseService.class);
    public static final int DEFAULT_AUTO_SLEEP_SECONDS = 300;
    private static final int MAX_AUTO_SLEEP_SECONDS = 7 * 24 * 3600;
    public static final int DEFAULT_DISK_MB = 10_240;
    static final int MIN_DISK_MB = 256;
    static final int MAX_DISK_MB = 1_048_576;
    // How long a requested sleep waits for pooled transactions to end before it ends them.
    private static final Duration POOL_PAUSE_LIMIT = Duration.ofSeconds(5);

    private final Jdbi jdbi;
    private final DatabaseStore store;
    private final CheckpointStore checkpointStore;
    private final Keyring keyring;
    private final DatabaseRows rows;
    private final Layout layout;
    private final Optional<DatabaseHost> host;
    private final ComputerReach reach;
    private final String unavailable;
    private final String publicHost;
    private final Clock clock;
    private final LocalNode node;
    private Optional<DatabaseMoves> moves = Optional.empty();
    private final Moments moments;
    private final TimeTravels travels;
    private final DatabaseInsights insights = new DatabaseInsights(this);
    private final DatabaseRoles roles = new DatabaseRoles(this);
    private final DatabaseUsage usage = new DatabaseUsage(this);

    public DatabaseService(Jdbi jdbi, DatabaseStore store, CheckpointStore checkpointStore, Keyring keyring,
                           DatabaseEngine.Found found, DatabaseSettings settings, Clock clock,
                           Optional<Firewall> firewall, Optional<DirectPorts> direct, Timings timings,
                           LocalNode node) {
        this.node = node;
        this.jdbi = jdbi;
        this.store = store;
        this.checkpointStore = checkpointStore;
        this.keyring = keyring;
        this.rows = new DatabaseRows(jdbi, store, checkpointStore, keyring);
        this.layout = found.layout();
        this.reach = new ComputerReach(firewall, settings.firstPort());
        this.host = found.engine().map(engine -> new DatabaseHost(engine, layout, settings, rows, clock, reach,
                direct, timings));
        if (host.isEmpty()) {
            // No host to drop it at close: the forwards' table would outlive this process, empty.
            direct.ifPresent(DirectPorts::drop);
        }
        this.unavailable = found.unavailable();
        this.publicHost = settings.publicHost();
        this.clock = clock;
        this.moments = new Moments(this, rows, clock);
        this.travels = new TimeTravels(this, rows, clock);
    }

    /** The statements databases spend their time on (see {@link DatabaseInsights}). */
    public DatabaseInsights insights() {
        return insights;
    }

    /** The PostgreSQL roles and databases inside each database (see {@link DatabaseRoles}). */
    public DatabaseRoles roles() {
        return roles;
    }

    /** What databases use, now and over the last hour (see {@link DatabaseUsage}). */
    public DatabaseUsage usage() {
        return usage;
    }

    /** Its history: branches and restores at a moment (see {@link Moments}). */
    public Moments moments() {
        return moments;
    }

    /** Read-only clusters of its past (see {@link TimeTravels}). */
    public TimeTravels travels() {
        return travels;
    }

    public Database create(Workspace workspace, CreateDatabase request) {
        var source = request.fromCheckpoint() == null ? null
                : BranchSource.find(jdbi, store, checkpointStore, workspace, request.fromCheckpoint());
        var moment = moments.source(workspace, request);
        if (source != null || moment != null) {
            here(source != null ? source.database() : moment.database());
        } else {
            node.placeDatabase();
        }
        var host = host();
        node.requireTakingWork();
        String name = Validate.dnsLabel("name", request.name());
        int autoSleep = Validate.range("auto_sleep_seconds", request.autoSleepSeconds(), 0, MAX_AUTO_SLEEP_SECONDS,
                DEFAULT_AUTO_SLEEP_SECONDS);
        String version = source != null ? source.version(request.version())
                : moment != null ? moment.version(request.version()) : host.engine().version(request.version());
        int diskMb = source != null ? source.diskMb(request.diskMb(),
                DatabaseDisks.copiedMb(layout.checkpoint(source.checkpoint().id())))
                : moment != null ? moment.diskMb(request.diskMb())
                : Validate.range("disk_mb", request.diskMb(), MIN_DISK_MB, MAX_DISK_MB, DEFAULT_DISK_MB);
        if (jdbi.withHandle(h -> store.find(h, workspace.id(), name)).filter(d -> !d.isDeleted()).isPresent()) {
            throw taken(name);
        }
        String id = Ids.next();
        int port = host.ports().reserve();
        try {
            var db = newDatabase(host, workspace, id, name, version, port,
                    new Database.Settings(Boolean.TRUE.equals(request.protectedFlag()), autoSleep, diskMb,
                            historyHours(request.historyHours(), Database.Settings.DEFAULT_HISTORY_HOURS)), source, moment);
            insert(db);
            host.serve(db);
            LOG.info("database {} ({}) created in workspace {} on port {}", name, id, workspace.name(), port);
            return moment == null ? moments.first(db) : moments.recovered(db, moment);
        } finally {
            host.ports().release(port);
        }
    }

    public Page<Database> list(Workspace workspace, PageRequest page) {
        return Page.of(jdbi.withHandle(h -> store.page(h, workspace.id(), page)), page.limit(), Database::id);
    }

    /** Reads Hearth's store only: never wakes the database, never touches its cluster. */
    public Database get(Workspace workspace, String ref) {
        return jdbi.withHandle(h -> store.find(h, workspace.id(), ref))
                .orElseThrow(() -> ApiException.notFound("database " + ref));
    }

    public Database update(Workspace workspace, String ref, UpdateDatabase request) {
        var db = live(workspace, ref);
        var settings = db.settings();
        boolean protect = request.protectedFlag() == null ? settings.protectedFlag() : request.protectedFlag();
        int autoSleep = Validate.range("auto_sleep_seconds", request.autoSleepSeconds(), 0, MAX_AUTO_SLEEP_SECONDS,
                settings.autoSleepSeconds());
        int diskMb = DatabaseDisks.grown(request.diskMb(), settings.diskMb());
        return locked(db.id(), () -> {
            var changed = rows.load(db.id()).withSettings(new Database.Settings(protect, autoSleep, diskMb,
                    historyHours(request.historyHours(), settings.historyHours())), now());
            rows.save(changed);
            host().supervisor().autoSleep(db.id(), autoSleep);
            return changed;
        });
    }

    public Database delete(Workspace workspace, String ref) {
        var host = host();
        var db = live(workspace, ref);
        if (db.settings().protectedFlag()) {
            throw new ApiException(ErrorCode.PROTECTED, "database " + db.name() + " is protected; PATCH it with "
                    + "{\"protected\": false} first");
        }
        travels.endAll(db.id());
        var deleted = locked(db.id(), () -> {
            var state = host.retire(db);
            var gone = rows.load(db.id()).deleted(state, now());
            host.discard(db.id(), rows.markDeleted(gone, now()));
            return gone;
        });
        host.forget(db.id());
        LOG.info("database {} ({}) deleted", db.name(), db.id());
        return deleted;
    }

    /** The connection details; the password only for roles that may read secrets. */
    public Connection connection(Workspace workspace, String ref, Role role) {
        var engine = host().engine();
        var db = live(workspace, ref);
        var connection = db.connection(rows.password(db), engine.pooler().port(), db.id(), engine.caPem());
        return role.atLeast(Action.SECRET_READ.minimum()) ? connection : connection.redacted();
    }

    /** One SQL statement of the console's editor, as the owner: read-only below the editor role. */
    SqlResult query(Workspace workspace, String ref, SqlQuery query, Role role) {
        return SqlConsole.run(connection(workspace, ref, Role.ADMIN), query, !role.atLeast(Role.EDITOR));
    }

    /**
     * A new password, and every earlier one (including one set in SQL) refused from now on. Awake:
     * set at once, and the role's sessions ended (pgbouncer's server connections with them: they
     * are sessions of that role too; its admin console's KILL crashes pgbouncer 1.18). Asleep: recorded
     * ({@code reset_pending}) and applied to the stopped cluster before it accepts anyone.
     */
    public Connection resetCredentials(Workspace workspace, String ref) {
        var host = host();
        var db = live(workspace, ref);
        String password = Scram.newPassword();
        var reset = locked(db.id(), () -> newPassword(host, db, password));
        boolean pending = reset.login().resetPending();
        if (pending) {
            Thread.ofVirtual().name("database-reset").start(() -> host.supervisor().applyPendingReset(db.id()));
        }
        LOG.info("database {} ({}): credentials reset{}", db.name(), db.id(), pending ? " while asleep" : "");
        var engine = host.engine();
        return reset.connection(password, engine.pooler().port(), db.id(), engine.caPem());
    }

    public Database sleep(Workspace workspace, String ref) {
        var supervisor = host().supervisor();
        var db = live(workspace, ref);
        var pooler = host().engine().pooler();
        return locked(db.id(), () -> {
            // Pooled clients wait in pgbouncer rather than fail on a server connection the sleep ends.
            pooler.pause(db.id(), POOL_PAUSE_LIMIT);
            try {
                supervisor.sleepNow(db.id());
            } finally {
                pooler.resume(db.id());
            }
            return rows.load(db.id());
        });
    }

    public Database wake(Workspace workspace, String ref) {
        var supervisor = host().supervisor();
        var db = live(workspace, ref);
        return locked(db.id(), () -> {
            supervisor.start(db.id());
            return rows.load(db.id());
        });
    }

    /**
     * The address a live database of the workspace is reached at from its computers, by name (this
     * node's own or, through this node, another's).
     */
    public Optional<InetAddress> internalAddress(String workspaceId, String name) {
        return jdbi.withHandle(h -> store.find(h, workspaceId, name))
                .filter(d -> !d.isDeleted() && d.name().equals(name))
                .map(d -> {
                    try {
                        return InetAddress.getByName(reach.address(d.placement().port()).host());
                    } catch (UnknownHostException e) {
                        throw new IllegalStateException(e);
                    }
                });
    }

    public Contents contents() {
        return new Contents("databases", store::countLive);
    }

    /**
     * What this node takes in of a draining node's databases; from {@link #start} on, its own
     * sleeping databases move to others through {@code shipments} while it drains.
     */
    public DatabaseCargo moves(Shipments shipments) {
        moves = host.map(h -> new DatabaseMoves(h, rows, node, shipments));
        return moves.<DatabaseCargo>map(m -> m).orElse(DatabaseCargo.NONE);
    }

    /**
     * Before the reconcile ({@link #start}): this node's databases' ports listen, their connections
     * waiting until their database is reconciled rather than being refused.
     */
    public void listenEarly() {
        host.ifPresent(h -> h.listenEarly(rows.live()));
    }

    /** Makes what the store says true and starts the auto-sleep ticker, where databases can run. */
    public void start() {
        host.ifPresent(h -> {
            moments.finishInterrupted();
            h.start();
        });
        moves.ifPresent(DatabaseMoves::start);
    }

    @Override
    public void close() {
        moves.ifPresent(DatabaseMoves::stop);
        travels.close();
        host.ifPresent(DatabaseHost::close);
    }

    // ---- for checkpoints

    /** A database this node runs, for work on its cluster (see {@link #here}); 404 when deleted. */
    Database live(Workspace workspace, String ref) {
        var db = get(workspace, ref);
        if (db.isDeleted()) {
            throw ApiException.notFound("database " + ref + " (deleted)");
        }
        return here(db);
    }

    /** The database, when this node runs its cluster: 421 wrong_node, or 503 node_unavailable while its node is down. */
    Database here(Database db) {
        node.requireHere("database " + db.name(), db.placement().node());
        return db;
    }

    Clock clock() {
        return clock;
    }

    String node() {
        return node.name();
    }

    /** What runs databases here; every database route that needs it says why there is none (503). */
    DatabaseHost host() {
        return host.orElseThrow(() -> new ApiException(ErrorCode.RUNTIME_UNAVAILABLE,
                "databases are unavailable on this server: " + unavailable));
    }

    Layout layout() {
        return layout;
    }

    <T> T locked(String id, Callable<T> move) {
        try {
            return host().supervisor().locked(id, move);
        } catch (ClusterSupervisor.Departed e) {
            // It moved to another node while this waited: 421, which the API relays there.
            here(rows.load(id));
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "database " + id + " is moving; try again");
        } catch (ApiException e) {
            throw e;
        } catch (Exception e) {
            LOG.warn("database {}: {}", id, e.toString());
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "the database's cluster failed: " + e.getMessage());
        }
    }

    // ---- helpers

    private Database newDatabase(DatabaseHost host, Workspace workspace, String id, String name, String version,
                                 int port, Database.Settings settings, BranchSource source, MomentSource moment) {
        String password = Scram.newPassword();
        var parent = source != null ? source.database() : moment != null ? moment.database() : null;
        String dbName = parent == null ? name : parent.login().dbName();
        String user = parent == null ? name : parent.login().user();
        if (moment != null) {
            host.makeClusterAt(id, name, moment, user, password, settings.diskMb());
        } else {
            host.makeCluster(id, name, version, dbName, user, password, source == null ? null : source.checkpoint().id(),
                    settings.diskMb());
        }
        Instant now = now();
        return new Database(id, workspace.id(), name, new Database.Placement(store.node(), version, publicHost, port),
                new Database.Login(dbName, user, keyring.seal(password, "database:" + id), false),
                new Database.Lineage(parent == null ? null : parent.id(),
                        source == null ? null : source.checkpoint().id(), 1),
                settings,
                new Database.Status(DatabaseState.SLEEPING, null, now, now, null, null));
    }

    /** Stores a new database; a cluster made for a row that cannot be stored is removed. */
    private void insert(Database db) {
        try {
            Constraints.unique(() -> jdbi.inTransaction(h -> {
                store.insert(h, db);
                return db;
            }), () -> taken(db.name()));
        } catch (RuntimeException e) {
            host().drop(db.id());
            throw e;
        }
    }

    /** Under the database's lock: recorded as pending first, then set in the cluster if it runs. */
    private Database newPassword(DatabaseHost host, Database db, String password) {
        var pending = rows.load(db.id()).withPassword(keyring.seal(password, db.associatedData()), true, now());
        rows.save(pending);
        var cluster = host.supervisor().cluster(db.id());
        if (cluster == null) {
            return pending;
        }
        host.engine().clusters().setPassword(cluster, db.login().user(), Scram.verifier(password));
        var done = pending.withPassword(pending.login().password(), false, now());
        rows.save(done);
        return done;
    }

    private static int historyHours(Integer requested, int current) {
        return Validate.range("history_hours", requested, 1, Database.Settings.MAX_HISTORY_HOURS, current);
    }

    private static ApiException taken(String name) {
        return ApiException.conflict("a database named " + name + " already exists in this workspace");
    }

    Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
