package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.fs.Disk;
import dev.hearth.server.checkpoints.Checkpoint;
import dev.hearth.server.metrics.Timings;
import dev.hearth.server.network.DirectPorts;
import dev.hearth.server.pgwire.WakeProxy;
import dev.hearth.server.postgres.Pooler;
import dev.hearth.server.postgres.Scram;
import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What runs databases on this host: their clusters' files, each database's public port (the wake
 * proxy) and pooler entry, its cluster (through the {@link ClusterSupervisor}), the auto-sleep
 * ticker, the ports new databases get, and the trash their files leave through.
 */
final class DatabaseHost implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseHost.class);

    private final DatabaseEngine engine;
    private final Layout layout;
    private final String listenHost;
    private final ComputerReach reach;
    private final DatabaseRows rows;
    private final Clock clock;
    private final ClusterSupervisor supervisor;
    private final WakeProxy proxy;
    private final PortPool ports;
    private final Trash trash;
    private final DatabaseDisks disks;
    private final Optional<DirectPorts> direct;
    private final ScheduledExecutorService ticker =
            Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("database-auto-sleep").factory());

    DatabaseHost(DatabaseEngine engine, Layout layout, DatabaseSettings settings, DatabaseRows rows, Clock clock,
                 ComputerReach reach, Optional<DirectPorts> direct, Timings timings) {
        this.engine = engine;
        this.layout = layout;
        this.listenHost = settings.listenHost();
        this.reach = reach;
        this.rows = rows;
        this.clock = clock;
        this.disks = new DatabaseDisks(layout, engine.clusters(), engine.volume().shares());
        this.direct = direct;
        var paths = new WirePaths(direct, reach, settings.listenHost(), () -> engine.pooler().port());
        this.supervisor = new ClusterSupervisor(engine.clusters(), layout, disks, rows, clock, timings, paths);
        this.proxy = new WakeProxy(supervisor);
        this.ports = new PortPool(rows, settings);
        this.trash = new Trash(layout.trash());
    }

    DatabaseEngine engine() {
        return engine;
    }

    Layout layout() {
        return layout;
    }

    ClusterSupervisor supervisor() {
        return supervisor;
    }

    PortPool ports() {
        return ports;
    }

    Trash trash() {
        return trash;
    }

    DatabaseDisks disks() {
        return disks;
    }

    /**
     * Makes a new database's cluster, stopped: from the template, or as a copy of the checkpoint
     * {@code fromCheckpoint}, on disks of {@code diskMb}. Nothing is left of one that could not be made.
     */
    void makeCluster(String id, String name, String version, String dbName, String user, String password,
                     String fromCheckpoint, int diskMb) {
        var clusters = engine.clusters();
        try {
            if (fromCheckpoint != null && DatabaseDisks.holdsDisks(layout.checkpoint(fromCheckpoint))) {
                disks.restore(layout.checkpoint(fromCheckpoint), id, diskMb);
                clusters.setPasswordAtStart(layout.data(id), user, Scram.verifier(password));
                return;
            }
            disks.mount(id, diskMb);
            clusters.privateDir(layout.cluster(id));
            clusters.privateDir(layout.socketDir(id));
            if (fromCheckpoint == null) {
                clusters.create(version, layout.data(id), dbName, user, Scram.verifier(password));
            } else {
                clusters.branch(layout.checkpointData(fromCheckpoint), layout.data(id), user,
                        Scram.verifier(password));
            }
            disks.moveWal(id, diskMb);
        } catch (IOException | RuntimeException e) {
            drop(id);
            LOG.warn("database {} could not be made: {}", name, e.toString());
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "the database's cluster could not be made: "
                    + e.getMessage());
        }
    }

    /** Opens the database's public port (and the one computers reach), puts it in the pooler and in their reach. */
    void serve(Database db) {
        supervisor.autoSleep(db.id(), db.settings().autoSleepSeconds());
        int port = db.placement().port();
        try {
            proxy.open(db.id(), reach.listenOn(listenHost), port);
        } catch (IOException e) {
            throw new IllegalStateException("port " + port + " is taken: " + e.getMessage(), e);
        }
        engine.pooler().put(db.id(), new Pooler.Entry(port, db.login().dbName()));
        reach.expose(db, engine.pooler().port());
    }

    /**
     * For a database being deleted, under its lock: no wake from now on, no cluster, no port, no
     * pooler entry, out of computers' reach. Returns the state its row takes.
     */
    DatabaseState retire(Database db) {
        var state = supervisor.retire(db.id());
        proxy.close(db.id());
        engine.pooler().remove(db.id());
        reach.hide(db, engine.pooler().port());
        return state;
    }

    /** Removes the disks and files of a database that has no row (or never got one). */
    void drop(String id) {
        disks.remove(id);
        Disk.deleteTree(layout.cluster(id));
    }

    /** Removes a deleted database's disks, and moves its other files and its checkpoints' to the trash. */
    void discard(String id, List<Checkpoint> checkpoints) {
        disks.remove(id);
        trash.put(layout.cluster(id));
        checkpoints.forEach(c -> trash.put(layout.checkpoint(c.id())));
    }

    /** After a delete, outside the database's lock: its live state goes, and the trash is emptied. */
    void forget(String id) {
        supervisor.forget(id);
        trash.emptyLater();
    }

    /** Makes what the store says true (see {@link ClusterReconciler}), then starts the auto-sleep ticker. */
    void start() {
        new ClusterReconciler(this, rows, clock).reconcile();
        ticker.scheduleWithFixedDelay(this::sleepIdle, 1, 1, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        trash.await();
        proxy.close();
        supervisor.stopAll();
        direct.ifPresent(DirectPorts::drop);
        engine.pooler().close();
    }

    private void sleepIdle() {
        try {
            supervisor.sleepIdle();
        } catch (RuntimeException e) {
            LOG.warn("auto-sleep pass failed: {}", e.toString());
        }
    }
}
