package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.databases.DatabaseState;
import dev.hearth.fs.Disk;
import dev.hearth.server.metrics.Timings;
import dev.hearth.server.network.DirectPorts;
import dev.hearth.server.pgwire.WakeProxy;
import dev.hearth.server.postgres.History;
import dev.hearth.server.postgres.Pooler;
import dev.hearth.server.postgres.Scram;
import dev.hearth.server.process.Rounds;
import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
    // The databases this node runs (their rows name it), as opposed to those it reaches elsewhere.
    private final Set<String> served = ConcurrentHashMap.newKeySet();
    private final Reconciling reconciling = new Reconciling();
    private final Elsewhere elsewhere;
    private final DatabaseSamples samples;
    private final Bases bases;
    private final HistoryKeeper keeper;
    private Thread sampling;
    private Thread keeping;
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
        var targets = new Elsewhere.Targets(rows);
        this.proxy = new WakeProxy(new Destinations(supervisor, targets::of, served, reconciling));
        this.elsewhere = new Elsewhere(targets, proxy, engine.pooler(), reach, listenHost, served::contains);
        this.ports = new PortPool(rows, settings);
        this.trash = new Trash(layout.trash());
        this.samples = new DatabaseSamples(this, clock);
        this.bases = new Bases(layout, disks);
        this.keeper = new HistoryKeeper(this, bases, clock);
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

    DatabaseSamples samples() {
        return samples;
    }

    Bases bases() {
        return bases;
    }

    HistoryKeeper keeper() {
        return keeper;
    }

    DatabaseRows rows() {
        return rows;
    }

    /** The databases this node runs now. */
    Set<String> served() {
        return Set.copyOf(served);
    }

    /** The address database ports listen on for clients. */
    String listenHost() {
        return listenHost;
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
                // The checkpoint may be older than the pooler's password (nodes came to share one since).
                clusters.setPoolerPasswordAtStart(layout.data(id));
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

    /**
     * Makes a stopped cluster from the source's base whose first start replays the source's WAL to the
     * moment (from its archive, then from its live pg_wal for what is not archived yet) and promotes.
     */
    void makeClusterAt(String id, String name, MomentSource moment, String user, String password, int diskMb) {
        var clusters = engine.clusters();
        String source = moment.database().id();
        try {
            disks.restore(moment.base().dir(), id, diskMb);
            History.recoverAtStart(layout.data(id), layout.archive(source), layout.wal(source), moment.target());
            clusters.setPasswordAtStart(layout.data(id), user, Scram.verifier(password));
            clusters.setPoolerPasswordAtStart(layout.data(id));
        } catch (IOException | RuntimeException e) {
            drop(id);
            LOG.warn("database {} could not be made: {}", name, e.toString());
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "the database's cluster could not be made: "
                    + e.getMessage());
        }
    }

    /**
     * Opens the database's public port (and the one computers reach), puts it in the pooler and in
     * their reach: this node runs it from now on (made here, found here at start, or moved here).
     */
    void serve(Database db) {
        supervisor.arrived(db.id());
        served.add(db.id());
        elsewhere.arrived(db.id());
        supervisor.autoSleep(db.id(), db.settings().autoSleepSeconds());
        int port = db.placement().port();
        engine.pooler().put(db.id(), Pooler.Entry.here(port, db.login().dbName()));
        reach.expose(db, engine.pooler().port());
        listen(db);
        reconciling.done(db.id());
    }

    /**
     * Before the reconcile: the ports of this node's databases listen, and connections to them wait
     * until {@link #serve} (or the end of the reconcile) lets them through, instead of being refused.
     */
    void listenEarly(List<Database> live) {
        for (var db : live) {
            reconciling.add(db.id());
            try {
                listen(db);
            } catch (IllegalStateException e) {
                reconciling.done(db.id());
            }
        }
    }

    /** The end of the reconcile: whatever still waits goes on (to its database, or to a refusal). */
    void reconciled() {
        reconciling.allDone();
    }

    private void listen(Database db) {
        int port = db.placement().port();
        try {
            proxy.open(db.id(), reach.listenOn(listenHost), port);
        } catch (IOException e) {
            throw new IllegalStateException("port " + port + " is taken: " + e.getMessage(), e);
        }
    }

    /**
     * {@link #serve}, for a database that moved here: a node on this same host may hold its port a
     * moment longer (until it learns the move is done), so the port is taken as soon as it is free.
     */
    void arrived(Database db) {
        try {
            serve(db);
        } catch (IllegalStateException taken) {
            Thread.ofVirtual().name("database-port").start(() -> {
                for (int i = 0; i < 300 && served.contains(db.id()); i++) {
                    try {
                        Thread.sleep(100);
                        listen(db);
                        return;
                    } catch (IllegalStateException stillTaken) {
                        // its last node lets go of it in a moment
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                LOG.error("database {} moved here, but its port {} stays taken", db.id(), db.placement().port());
            });
        }
    }

    /**
     * Under its lock, for a database that moved to the node whose database ports are on
     * {@code nodeAddress}: its connections go there from now on, and whoever waits for it here too.
     */
    void departed(Database db, String nodeAddress) {
        supervisor.departed(db.id());
        served.remove(db.id());
        elsewhere.departed(db, nodeAddress);
    }

    /**
     * For a database being deleted, under its lock: no wake from now on, no cluster, no port, no
     * pooler entry, out of computers' reach. Returns the state its row takes.
     */
    DatabaseState retire(Database db) {
        var state = supervisor.retire(db.id());
        served.remove(db.id());
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

    /** A cluster made apart from any database (a restore's recovery, a time travel): its disks, files and archive. */
    void dropApart(String id) {
        drop(id);
        Disk.deleteTree(layout.history(id));
    }

    /** Removes a deleted database's disks, and moves its other files and its checkpoints' to the trash. */
    void discard(String id, List<Checkpoint> checkpoints) {
        disks.remove(id);
        trash.put(layout.cluster(id));
        trash.put(layout.history(id));
        checkpoints.forEach(c -> trash.put(layout.checkpoint(c.id())));
    }

    /** After a delete, outside the database's lock: its live state goes, and the trash is emptied. */
    void forget(String id) {
        supervisor.forget(id);
        trash.emptyLater();
    }

    /** Makes what the store says true (see {@link ClusterReconciler}), then starts the auto-sleep ticker. */
    void start() {
        try {
            new ClusterReconciler(this, rows, clock).reconcile();
        } finally {
            reconciled();
        }
        ticker.scheduleWithFixedDelay(this::sleepIdle, 1, 1, TimeUnit.SECONDS);
        ticker.scheduleWithFixedDelay(this::reachElsewhere, 0, Elsewhere.EVERY_SECONDS, TimeUnit.SECONDS);
        sampling = samples.start();
        keeping = Rounds.every("database-history", HistoryKeeper.ROUND, LOG, "keeping databases' history failed",
                keeper::round);
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        for (var loop : new Thread[] {sampling, keeping}) {
            if (loop != null) {
                loop.interrupt();
            }
        }
        trash.await();
        proxy.close();
        supervisor.stopAll();
        direct.ifPresent(DirectPorts::drop);
        engine.pooler().close();
    }

    private void reachElsewhere() {
        try {
            elsewhere.refresh();
        } catch (RuntimeException e) {
            LOG.warn("reading other nodes' databases failed: {}", e.toString());
        }
    }

    private void sleepIdle() {
        try {
            supervisor.sleepIdle();
        } catch (RuntimeException e) {
            LOG.warn("auto-sleep pass failed: {}", e.toString());
        }
    }
}
