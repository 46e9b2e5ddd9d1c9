package dev.hearth.server.databases;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Validate;
import dev.hearth.fs.Disk;
import dev.hearth.server.checkpoints.Checkpoint;
import dev.hearth.server.checkpoints.CheckpointState;
import dev.hearth.server.checkpoints.CheckpointStore;
import dev.hearth.server.checkpoints.SourceType;
import dev.hearth.server.crypto.Keyring;
import dev.hearth.server.databases.DatabaseState.Move;
import dev.hearth.server.pgwire.WakeProxy;
import dev.hearth.server.postgres.Clusters;
import dev.hearth.server.postgres.Pooler;
import dev.hearth.server.postgres.Scram;
import dev.hearth.server.store.Constraints;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.tenancy.Action;
import dev.hearth.server.tenancy.Role;
import dev.hearth.server.tenancy.Workspace;
import dev.hearth.server.workspaces.Contents;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules of databases: create (from the template, or as a branch of a checkpoint), read (the
 * store only: a read never wakes or touches a cluster), change, delete, connection details,
 * credential resets, sleep and wake. The clusters themselves are the {@link ClusterSupervisor}'s.
 */
public final class DatabaseService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseService.class);
    public static final int DEFAULT_AUTO_SLEEP_SECONDS = 300;
    private static final int MAX_AUTO_SLEEP_SECONDS = 7 * 24 * 3600;

    public record CreateDatabase(String name, String version, String fromCheckpoint, Integer autoSleepSeconds,
                                 @JsonProperty("protected") Boolean protectedFlag) {
    }

    public record UpdateDatabase(@JsonProperty("protected") Boolean protectedFlag, Integer autoSleepSeconds) {
    }

    /** Where databases listen: the public host named in connections, the listen address and the port range. */
    public record Ports(String publicHost, String listenHost, int first, int last) {
    }

    /** The parts that run databases; absent when this host cannot (the reason is then given). */
    public record Engine(Clusters clusters, Pooler pooler, String caPem) {
    }

    private final Jdbi jdbi;
    private final DatabaseStore store;
    private final CheckpointStore checkpointStore;
    private final Keyring keyring;
    private final Optional<Engine> engine;
    private final String unavailable;
    private final Layout layout;
    private final Ports ports;
    private final Clock clock;
    private final ClusterSupervisor supervisor;
    private final WakeProxy proxy;
    private final Set<Integer> reservedPorts = new HashSet<>();
    // The latest removal of trashed files; close waits for it so that nothing runs on after.
    private Thread trash;
    private final ScheduledExecutorService ticker =
            Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("database-auto-sleep").factory());

    public DatabaseService(Jdbi jdbi, DatabaseStore store, CheckpointStore checkpointStore, Keyring keyring,
                           Optional<Engine> engine, String unavailable, Path root, Ports ports, Clock clock) {
        this.jdbi = jdbi;
        this.store = store;
        this.checkpointStore = checkpointStore;
        this.keyring = keyring;
        this.engine = engine;
        this.unavailable = unavailable;
        this.layout = new Layout(root);
        this.ports = ports;
        this.clock = clock;
        this.supervisor = engine.map(e -> new ClusterSupervisor(e.clusters(), layout, rows(), clock)).orElse(null);
        this.proxy = supervisor == null ? null : new WakeProxy(supervisor);
    }

    // ---- the API's side

    public Database create(Workspace workspace, CreateDatabase request) {
        var engine = engine();
        String name = Validate.dnsLabel("name", request.name());
        int autoSleep = Validate.range("auto_sleep_seconds", request.autoSleepSeconds(), 0, MAX_AUTO_SLEEP_SECONDS,
                DEFAULT_AUTO_SLEEP_SECONDS);
        var source = request.fromCheckpoint() == null ? null : branchSource(workspace, request.fromCheckpoint());
        String version = version(request.version(), source);
        if (jdbi.withHandle(h -> store.find(h, workspace.id(), name)).filter(d -> !d.isDeleted()).isPresent()) {
            throw taken(name);
        }
        String id = Ids.next();
        int port = reservePort();
        try {
            var db = makeCluster(engine, workspace, id, name, version, port, autoSleep,
                    Boolean.TRUE.equals(request.protectedFlag()), source);
            try {
                Constraints.unique(() -> jdbi.inTransaction(h -> {
                    store.insert(h, db);
                    return db;
                }), () -> taken(name));
            } catch (RuntimeException e) {
                Disk.deleteTree(layout.cluster(id));
                throw e;
            }
            serve(db);
            LOG.info("database {} ({}) created in workspace {} on port {}", name, id, workspace.name(), port);
            return db;
        } finally {
            release(port);
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
        boolean protect = request.protectedFlag() == null ? db.settings().protectedFlag() : request.protectedFlag();
        int autoSleep = Validate.range("auto_sleep_seconds", request.autoSleepSeconds(), 0, MAX_AUTO_SLEEP_SECONDS,
                db.settings().autoSleepSeconds());
        return locked(db.id(), () -> {
            var changed = rows().load(db.id()).withSettings(protect, autoSleep, now());
            rows().save(changed);
            supervisor.instance(db.id()).autoSleepSeconds = autoSleep;
            return changed;
        });
    }

    public Database delete(Workspace workspace, String ref) {
        engine();
        var db = live(workspace, ref);
        if (db.settings().protectedFlag()) {
            throw new ApiException(ErrorCode.PROTECTED, "database " + db.name() + " is protected; PATCH it with "
                    + "{\"protected\": false} first");
        }
        var deleted = locked(db.id(), () -> {
            supervisor.instance(db.id()).gone = true;
            supervisor.stop(db.id(), null);
            proxy.close(db.id());
            engine().pooler().remove(db.id());
            var gone = rows().load(db.id()).deleted(supervisor.state(db.id()).after(Move.DELETE), now());
            var checkpoints = jdbi.inTransaction(h -> {
                store.update(h, gone);
                var live = checkpointStore.live(h, db.id());
                live.forEach(c -> checkpointStore.update(h, c.deleted(now())));
                return live;
            });
            toTrash(layout.cluster(db.id()));
            checkpoints.forEach(c -> toTrash(layout.checkpoint(c.id())));
            return gone;
        });
        supervisor.forget(db.id());
        emptyTrashLater();
        LOG.info("database {} ({}) deleted", db.name(), db.id());
        return deleted;
    }

    /** The connection details; the password only for roles that may read secrets. */
    public Connection connection(Workspace workspace, String ref, Role role) {
        var engine = engine();
        var db = live(workspace, ref);
        var connection = Connection.of(db, keyring.open(db.login().password(), db.associatedData()), engine.pooler().port(),
                db.id(), engine.caPem());
        return role.atLeast(Action.SECRET_READ.minimum()) ? connection : connection.redacted();
    }

    /**
     * A new password, and every earlier one (including one set in SQL) refused from now on. Awake:
     * set at once, and the role's sessions ended (pgbouncer's server connections with them: they
     * are sessions of that role too; its admin console's KILL crashes pgbouncer 1.18). Asleep: recorded
     * ({@code reset_pending}) and applied to the stopped cluster before it accepts anyone.
     */
    public Connection resetCredentials(Workspace workspace, String ref) {
        var engine = engine();
        var db = live(workspace, ref);
        String password = Scram.newPassword();
        var reset = locked(db.id(), () -> {
            var pending = rows().load(db.id()).withPassword(keyring.seal(password, db.associatedData()), true, now());
            rows().save(pending);
            var cluster = supervisor.cluster(db.id());
            if (cluster == null) {
                return pending;
            }
            engine.clusters().setPassword(cluster, db.login().user(), Scram.verifier(password));
            var done = pending.withPassword(pending.login().password(), false, now());
            rows().save(done);
            return done;
        });
        if (reset.login().resetPending()) {
            Thread.ofVirtual().name("database-reset").start(() -> applyPendingReset(db.id()));
        }
        LOG.info("database {} ({}): credentials reset{}", db.name(), db.id(), reset.login().resetPending() ? " while asleep" : "");
        return Connection.of(reset, password, engine.pooler().port(), db.id(), engine.caPem());
    }

    public Database sleep(Workspace workspace, String ref) {
        engine();
        var db = live(workspace, ref);
        try {
            supervisor.settleLogins(db.id());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "interrupted while waiting for logins to finish");
        }
        return locked(db.id(), () -> {
            supervisor.stop(db.id(), null);
            return rows().load(db.id());
        });
    }

    public Database wake(Workspace workspace, String ref) {
        engine();
        var db = live(workspace, ref);
        return locked(db.id(), () -> {
            supervisor.start(db.id());
            return rows().load(db.id());
        });
    }

    public Contents contents() {
        return new Contents() {
            @Override
            public String noun() {
                return "databases";
            }

            @Override
            public long count(Handle h, String workspace) {
                return store.countLive(h, workspace);
            }
        };
    }

    // ---- for checkpoints

    Database live(Workspace workspace, String ref) {
        var db = get(workspace, ref);
        if (db.isDeleted()) {
            throw ApiException.notFound("database " + ref + " (deleted)");
        }
        return db;
    }

    ClusterSupervisor supervisor() {
        return supervisor;
    }

    Layout layout() {
        return layout;
    }

    Engine engine() {
        return engine.orElseThrow(() -> new ApiException(ErrorCode.RUNTIME_UNAVAILABLE,
                "databases are unavailable on this server: " + unavailable));
    }

    <T> T locked(String id, Callable<T> move) {
        try {
            return supervisor.locked(id, move);
        } catch (ApiException e) {
            throw e;
        } catch (Exception e) {
            LOG.warn("database {}: {}", id, e.toString());
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "the database's cluster failed: " + e.getMessage());
        }
    }

    // ---- start and stop of the service

    /**
     * Makes what the store says true: clusters an earlier Hearth left running are stopped cleanly
     * (their databases wake again on the next connection), resets recorded while asleep are
     * applied, every database listens on its port and is in the pooler, and files without a row go.
     */
    public void start() {
        if (engine.isEmpty()) {
            return;
        }
        var live = jdbi.withHandle(store::live);
        for (var db : live) {
            engine.get().clusters().postmasterOf(layout.data(db.id())).ifPresent(postmaster -> {
                LOG.info("database {}: stopping the cluster an earlier Hearth left running (pid {})", db.id(),
                        postmaster.pid());
                engine.get().clusters().stop(postmaster);
            });
            if (db.status().state().allows(Move.SLEEP)) {
                rows().save(rows().load(db.id()).withState(db.status().state().after(Move.SLEEP), db.status().error(), now()));
            }
            if (db.login().resetPending()) {
                applyPendingReset(db.id());
            }
            try {
                serve(db);
            } catch (RuntimeException e) {
                LOG.error("database {} cannot listen on port {}: {}", db.id(), db.placement().port(), e.getMessage());
            }
        }
        removeOrphans(live);
        ticker.scheduleWithFixedDelay(this::sleepIdle, 1, 1, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        awaitTrash();
        if (supervisor != null) {
            proxy.close();
            supervisor.stopAll();
            engine.get().pooler().close();
        }
    }

    // ---- helpers

    private record Source(Checkpoint checkpoint, Database database) {
    }

    private Database makeCluster(Engine engine, Workspace workspace, String id, String name, String version, int port,
                                 int autoSleep, boolean protect, Source source) {
        String password = Scram.newPassword();
        var clusters = engine.clusters();
        String dbName = source == null ? name : source.database().login().dbName();
        String user = source == null ? name : source.database().login().user();
        try {
            clusters.privateDir(layout.cluster(id));
            clusters.privateDir(layout.socketDir(id));
            if (source == null) {
                clusters.create(version, layout.data(id), dbName, user, Scram.verifier(password));
            } else {
                clusters.branch(version, layout.checkpointData(source.checkpoint().id()), layout.data(id), user,
                        Scram.verifier(password));
            }
        } catch (IOException | RuntimeException e) {
            Disk.deleteTree(layout.cluster(id));
            LOG.warn("database {} could not be made: {}", name, e.toString());
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "the database's cluster could not be made: "
                    + e.getMessage());
        }
        Instant now = now();
        return new Database(id, workspace.id(), name, new Database.Placement(version, ports.publicHost(), port),
                new Database.Login(dbName, user, keyring.seal(password, "database:" + id), false),
                new Database.Lineage(source == null ? null : source.database().id(),
                        source == null ? null : source.checkpoint().id(), 1),
                new Database.Settings(protect, autoSleep),
                new Database.Status(DatabaseState.SLEEPING, null, now, now, null, null));
    }

    /** Opens the database's public port and puts it in the pooler. */
    private void serve(Database db) {
        supervisor.instance(db.id()).autoSleepSeconds = db.settings().autoSleepSeconds();
        try {
            proxy.open(db.id(), ports.listenHost(), db.placement().port());
        } catch (IOException e) {
            throw new IllegalStateException("port " + db.placement().port() + " is taken: " + e.getMessage(), e);
        }
        engine.get().pooler().put(db.id(), new Pooler.Entry(db.placement().port(), db.login().dbName()));
    }

    private Source branchSource(Workspace workspace, String ref) {
        var checkpoint = jdbi.withHandle(h -> findCheckpoint(h, workspace, ref))
                .orElseThrow(() -> ApiException.invalidField("from_checkpoint", "no checkpoint " + ref
                        + " of a database in this workspace (give its id, or DATABASE/NAME)"));
        if (!checkpoint.is(CheckpointState.READY)) {
            throw ApiException.invalidField("from_checkpoint", "checkpoint " + checkpoint.name() + " is "
                    + checkpoint.state().wire() + "; only a ready checkpoint can be branched from");
        }
        var source = jdbi.withHandle(h -> store.find(h, checkpoint.source())).orElseThrow();
        return new Source(checkpoint, source);
    }

    private Optional<Checkpoint> findCheckpoint(Handle h, Workspace workspace, String ref) {
        int slash = ref.indexOf('/');
        Optional<Checkpoint> found;
        if (slash > 0) {
            found = store.find(h, workspace.id(), ref.substring(0, slash)).filter(d -> !d.isDeleted())
                    .flatMap(d -> checkpointStore.find(h, d.id(), ref.substring(slash + 1)));
        } else {
            found = checkpointStore.find(h, ref);
        }
        return found.filter(c -> c.workspace().equals(workspace.id()) && c.deletedAt() == null
                && c.sourceType() == SourceType.DATABASE);
    }

    private String version(String requested, Source source) {
        var host = engine().clusters().host();
        if (source != null) {
            if (requested != null && !requested.equals(source.database().placement().version())) {
                throw ApiException.invalidField("version", "a branch keeps its checkpoint's version, "
                        + source.database().placement().version());
            }
            return source.database().placement().version();
        }
        if (requested == null) {
            return host.defaultVersion();
        }
        if (!host.versions().contains(requested)) {
            throw ApiException.invalidField("version", "PostgreSQL " + requested + " is not installed here; "
                    + "installed: " + String.join(", ", host.versions()));
        }
        return requested;
    }

    private int reservePort() {
        synchronized (reservedPorts) {
            var used = jdbi.withHandle(store::portsInUse);
            for (int port = ports.first(); port <= ports.last(); port++) {
                if (!used.contains(port) && !reservedPorts.contains(port) && WakeProxy.free(ports.listenHost(), port)) {
                    reservedPorts.add(port);
                    return port;
                }
            }
        }
        throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "no free database port left in " + ports.first() + "-"
                + ports.last() + " (hearth serve --database-ports)");
    }

    private void release(int port) {
        synchronized (reservedPorts) {
            reservedPorts.remove(port);
        }
    }

    private void applyPendingReset(String id) {
        try {
            supervisor.locked(id, () -> {
                var db = rows().load(id);
                if (db.login().resetPending() && !supervisor.awake(id)) {
                    engine().clusters().setPassword(db.placement().version(), layout.data(id), db.login().user(),
                            Scram.verifier(keyring.open(db.login().password(), db.associatedData())));
                    rows().save(db.withPassword(db.login().password(), false, now()));
                }
                return null;
            });
        } catch (Exception e) {
            // The reset stays pending: the next wake applies it before accepting anyone.
            LOG.warn("database {}: the reset made while asleep is not applied yet: {}", id, e.toString());
        }
    }

    private void sleepIdle() {
        try {
            supervisor.sleepIdle();
        } catch (RuntimeException e) {
            LOG.warn("auto-sleep pass failed: {}", e.toString());
        }
    }

    private void removeOrphans(List<Database> live) {
        var ids = new HashSet<String>();
        live.forEach(d -> ids.add(d.id()));
        var checkpoints = new HashSet<String>();
        jdbi.withHandle(checkpointStore::live).forEach(c -> checkpoints.add(c.id()));
        orphans(layout.root().resolve("clusters"), ids);
        orphans(layout.root().resolve("checkpoints"), checkpoints);
        emptyTrashLater();
    }

    private void orphans(Path dir, Set<String> keep) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> children = Files.list(dir)) {
            children.filter(p -> !keep.contains(p.getFileName().toString())).forEach(p -> {
                LOG.info("removing {}: no database or checkpoint in the store owns it", p);
                toTrash(p);
            });
        } catch (IOException e) {
            LOG.warn("cannot list {}: {}", dir, e.toString());
        }
    }

    private void toTrash(Path dir) {
        try {
            if (Files.exists(dir)) {
                Files.createDirectories(layout.trash());
                Files.move(dir, layout.trash().resolve(Ids.next()));
            }
        } catch (IOException e) {
            LOG.warn("cannot move {} to the trash: {}", dir, e.toString());
            Disk.deleteTree(dir);
        }
    }

    private synchronized void awaitTrash() {
        if (trash != null) {
            try {
                trash.join(Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private synchronized void emptyTrashLater() {
        trash = Thread.ofVirtual().name("database-trash").start(() -> {
            try {
                Disk.deleteTree(layout.trash());
            } catch (RuntimeException e) {
                LOG.warn("cannot empty {}: {}", layout.trash(), e.toString());
            }
        });
    }

    private ClusterSupervisor.Rows rows() {
        return new ClusterSupervisor.Rows() {
            @Override
            public Database load(String id) {
                return jdbi.withHandle(h -> store.find(h, id)).filter(d -> !d.isDeleted())
                        .orElseThrow(() -> ApiException.notFound("database " + id));
            }

            @Override
            public void save(Database d) {
                jdbi.useTransaction(h -> store.update(h, d));
            }

            @Override
            public String password(Database d) {
                return keyring.open(d.login().password(), d.associatedData());
            }
        };
    }

    private static ApiException taken(String name) {
        return ApiException.conflict("a database named " + name + " already exists in this workspace");
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
