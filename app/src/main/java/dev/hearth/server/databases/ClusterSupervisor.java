package dev.hearth.server.databases;

import dev.hearth.api.databases.DatabaseState.Move;
import dev.hearth.api.databases.DatabaseState;
import dev.hearth.api.operations.OperationError;
import dev.hearth.server.metrics.Timings;
import dev.hearth.server.pgwire.Backends.Refused;
import dev.hearth.server.postgres.Cluster;
import dev.hearth.server.postgres.Clusters;
import dev.hearth.server.postgres.Scram;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each database's cluster running or stopped as asked: wakes it for the proxy and the API,
 * puts it to sleep (on request, or after its auto-sleep delay with no connection), applies a
 * password reset recorded while it slept before it accepts anyone, and restarts a cluster that
 * crashed. Every move of one database happens under that database's lock; a connection that
 * arrives while the database falls asleep waits for the lock and then wakes it.
 */
final class ClusterSupervisor {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterSupervisor.class);
    // Wakes happen before any password is checked, so anyone who can reach a port can cause them.
    static final int WAKES_PER_MINUTE = 10;
    private static final int RESTARTS_PER_MINUTE = 5;
    // A connection the forward translated just before it went reaches the cluster's listener within this.
    private static final Duration FORWARD_GRACE = Duration.ofMillis(50);

    /** One database's live state: its lock, its running cluster (null asleep) and its connections. */
    private static final class Instance {
        final ReentrantLock lock = new ReentrantLock();
        volatile Cluster cluster;
        // Whether new connections reach the cluster without the proxy (see WirePaths).
        volatile boolean direct;
        // A requested sleep is under way: new connections wait for it, then wake the database again.
        volatile boolean draining;
        volatile boolean gone;
        // Moved to another node (its drain): connections waiting here go there instead.
        volatile boolean departed;
        final AtomicInteger connections = new AtomicInteger();
        volatile long idleSinceNanos = System.nanoTime();
        volatile int autoSleepSeconds;
        final PerMinute wakes = new PerMinute(WAKES_PER_MINUTE);
        final PerMinute restarts = new PerMinute(RESTARTS_PER_MINUTE);

        /** What runs is the truth; the stored state follows it. */
        DatabaseState state() {
            return cluster == null ? DatabaseState.SLEEPING : DatabaseState.READY;
        }
    }

    private final Clusters clusters;
    private final Layout layout;
    private final DatabaseDisks disks;
    private final DatabaseRows rows;
    private final Clock clock;
    private final Timings timings;
    private final WirePaths paths;
    private final Map<String, Instance> instances = new ConcurrentHashMap<>();

    ClusterSupervisor(Clusters clusters, Layout layout, DatabaseDisks disks, DatabaseRows rows, Clock clock,
                      Timings timings, WirePaths paths) {
        this.timings = timings;
        this.paths = paths;
        this.clusters = clusters;
        this.layout = layout;
        this.disks = disks;
        this.rows = rows;
        this.clock = clock;
    }

    private Instance instance(String id) {
        return instances.computeIfAbsent(id, k -> new Instance());
    }

    /** How long {@link #sleepIdle} lets the database go without a connection (0: never). */
    void autoSleep(String id, int seconds) {
        instance(id).autoSleepSeconds = seconds;
    }

    void forget(String id) {
        instances.remove(id);
    }

    /**
     * The database, asleep, moved to another node; the caller holds its lock. Its instance stays,
     * marked, so that whoever waited for the lock learns it and goes to that node.
     */
    void departed(String id) {
        instance(id).departed = true;
    }

    /** The database (back) on this node: whatever it was here before is forgotten. */
    void arrived(String id) {
        var before = instances.get(id);
        if (before != null && before.departed) {
            instances.remove(id, before);
        }
    }

    boolean awake(String id) {
        var i = instances.get(id);
        return i != null && i.cluster != null;
    }

    Cluster cluster(String id) {
        var i = instances.get(id);
        return i == null ? null : i.cluster;
    }

    // ---- the proxy's side (through Destinations)

    /** The database moved to another node while a connection waited for it here. */
    static final class Departed extends Exception {
        Departed() {
            super(null, null, false, false);
        }
    }

    /** The private port of the database's cluster, woken first if it sleeps. */
    int wake(String id) throws Refused, Departed {
        var instance = instance(id);
        var running = instance.cluster;
        if (running != null && !instance.draining) {
            return running.port();
        }
        instance.lock.lock();
        try {
            if (instance.departed) {
                throw new Departed();
            }
            if (instance.gone) {
                throw new Refused("3D000", "this database was deleted");
            }
            if (instance.cluster == null && !instance.wakes.allow()) {
                throw new Refused("57P03", "database is asleep and was woken " + WAKES_PER_MINUTE
                        + " times in the last minute; try again shortly");
            }
            long begin = System.nanoTime();
            int port = start(id).port();
            timings.record(Timings.Event.DATABASE_WAKE, System.nanoTime() - begin);
            return port;
        } catch (IOException | RuntimeException e) {
            LOG.warn("database {} could not be woken: {}", id, e.toString());
            throw new Refused("57P03", "database could not be woken: " + e.getMessage());
        } finally {
            instance.lock.unlock();
        }
    }

    OptionalInt awakePort(String id) {
        var running = cluster(id);
        return running == null ? OptionalInt.empty() : OptionalInt.of(running.port());
    }

    void opened(String id) {
        instance(id).connections.incrementAndGet();
    }

    void closed(String id) {
        var instance = instance(id);
        instance.idleSinceNanos = System.nanoTime();
        instance.connections.decrementAndGet();
    }

    // ---- moves, each under the database's lock

    /** Starts the cluster if it sleeps (applying a pending reset first); the caller holds the lock. */
    Cluster start(String id) throws IOException {
        var instance = instance(id);
        if (!instance.state().allows(Move.WAKE)) {
            return instance.cluster;
        }
        var db = rows.load(id);
        if (db.login().resetPending()) {
            db = resetApplied(db);
        }
        var cluster = startOnFreePort(db);
        var state = instance.state().after(Move.WAKE);
        instance.cluster = cluster;
        instance.idleSinceNanos = System.nanoTime();
        cluster.process().onExit().thenRun(() -> Thread.ofVirtual().start(() -> exited(id, cluster)));
        rows.save(db.withState(state, db.status().error(), now()));
        instance.direct = paths.direct(db, cluster.port());
        return cluster;
    }

    /** Stops the cluster if it runs; the caller holds the lock. */
    void stop(String id, OperationError error) {
        var instance = instance(id);
        if (!instance.state().allows(Move.SLEEP)) {
            return;
        }
        var state = instance.state().after(Move.SLEEP);
        var cluster = instance.cluster;
        var db = rows.load(id);
        proxied(instance, db, cluster);
        instance.cluster = null;
        clusters.stop(cluster);
        rows.save(db.withState(state, error, now()).withActivity(now()));
    }

    /**
     * A requested sleep; the caller holds the lock. New connections are held by the proxy from now
     * on (they wait for this lock, then wake the database again); logins already on their way to the
     * cluster finish first (a login cut short makes pgbouncer 1.18 turn away the pool's next client,
     * check_fast_fail); then the cluster stops, ending the sessions that are open.
     */
    void sleepNow(String id) throws InterruptedException {
        var instance = instance(id);
        var cluster = instance.cluster;
        if (cluster == null) {
            return;
        }
        instance.draining = true;
        try {
            proxied(instance, rows.load(id), cluster);
            Thread.sleep(FORWARD_GRACE);
            LoginsInFlight.await(id, cluster, clusters);
            stop(id, null);
        } finally {
            instance.draining = false;
        }
    }

    /** New connections go to the proxy again, if they did not already. */
    private void proxied(Instance instance, Database db, Cluster cluster) {
        if (instance.direct) {
            instance.direct = false;
            paths.proxied(db, cluster.port());
        }
    }

    /**
     * For a database being deleted: no wake from now on, and its cluster stopped. Returns the state
     * its row takes (the caller holds the lock).
     */
    DatabaseState retire(String id) {
        instance(id).gone = true;
        stop(id, null);
        return instance(id).state().after(Move.DELETE);
    }

    /** Writes a reset recorded while the database slept into its stopped cluster. */
    void applyPendingReset(String id) {
        try {
            locked(id, () -> {
                var db = rows.load(id);
                if (db.login().resetPending() && !awake(id)) {
                    rows.save(resetApplied(db));
                }
                return null;
            });
        } catch (Exception e) {
            // The reset stays pending: the next wake applies it before accepting anyone.
            LOG.warn("database {}: the reset made while asleep is not applied yet: {}", id, e.toString());
        }
    }

    /** Runs {@code move} under the database's lock; throws Departed when it moved to another node meanwhile. */
    <T> T locked(String id, Callable<T> move) throws Exception {
        var instance = instance(id);
        instance.lock.lock();
        try {
            if (instance.departed) {
                throw new Departed();
            }
            return move.call();
        } finally {
            instance.lock.unlock();
        }
    }

    /**
     * Puts every database to sleep that has had no connection for its auto-sleep delay: none through
     * the proxy, and none the kernel holds to its cluster (those that went straight to it).
     */
    void sleepIdle() {
        var held = TcpConnections.perLocalPort();
        for (var entry : instances.entrySet()) {
            var instance = entry.getValue();
            var cluster = instance.cluster;
            int delay = instance.autoSleepSeconds;
            if (cluster == null || delay <= 0) {
                continue;
            }
            if (held.getOrDefault(cluster.port(), 0) > 0) {
                instance.idleSinceNanos = System.nanoTime();
            }
            long idle = System.nanoTime() - instance.idleSinceNanos;
            if (instance.connections.get() > 0 || idle < Duration.ofSeconds(delay).toNanos()) {
                continue;
            }
            if (instance.lock.tryLock()) {
                try {
                    sleepIfStillIdle(entry.getKey(), instance);
                } finally {
                    instance.lock.unlock();
                }
            }
        }
    }

    // A connection counts itself before it reads the cluster, and this clears the cluster before it
    // counts again: either the connection sees no cluster (and waits for the lock), or this sees it.
    // Connections that go straight to the cluster are sent to the proxy first, then counted again.
    private void sleepIfStillIdle(String id, Instance instance) {
        var cluster = instance.cluster;
        if (cluster == null) {
            return;
        }
        var db = rows.load(id);
        proxied(instance, db, cluster);
        instance.cluster = null;
        if (instance.connections.get() > 0 || TcpConnections.perLocalPort().getOrDefault(cluster.port(), 0) > 0) {
            instance.cluster = cluster;
            instance.direct = paths.direct(db, cluster.port());
            return;
        }
        instance.cluster = cluster;
        LOG.info("database {} had no connection for its auto-sleep delay; putting it to sleep", id);
        stop(id, null);
    }

    private void exited(String id, Cluster cluster) {
        var instance = instance(id);
        instance.lock.lock();
        try {
            if (instance.cluster != cluster) {
                return;
            }
            var state = instance.state().after(Move.CRASH);
            proxied(instance, rows.load(id), cluster);
            instance.cluster = null;
            int code = cluster.process().exitValue();
            var error = new OperationError("crashed", "postgres exited unexpectedly (exit code " + code + ") at "
                    + now() + "; see " + layout.log(id));
            LOG.warn("database {}: postgres exited unexpectedly (exit code {}); starting it again", id, code);
            var db = rows.load(id);
            rows.save(db.withState(state, error, now()));
            if (!instance.restarts.allow()) {
                LOG.error("database {} crashed {} times in a minute; left asleep until a connection wakes it", id,
                        RESTARTS_PER_MINUTE);
                return;
            }
            start(id);
        } catch (IOException | RuntimeException e) {
            LOG.error("database {} could not be started again after a crash", id, e);
        } finally {
            instance.lock.unlock();
        }
    }

    private Database resetApplied(Database db) {
        clusters.setPassword(db.placement().version(), layout.data(db.id()), db.login().user(),
                Scram.verifier(rows.password(db)));
        return db.withPassword(db.login().password(), false, now());
    }

    private Cluster startOnFreePort(Database db) throws IOException {
        disks.mount(db.id(), db.settings().diskMb());
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = PortPool.freePort();
            try {
                return clusters.start(db.placement().version(), layout.data(db.id()), layout.socketDir(db.id()),
                        layout.log(db.id()), port, clusters.privateDir(layout.archive(db.id())));
            } catch (IOException e) {
                // Another process may have taken the port between the probe and the bind.
                last = e;
            }
        }
        throw last;
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }

    /** Stops every running cluster (Hearth is shutting down; they wake again on the next connection). */
    void stopAll() {
        for (var entry : instances.entrySet()) {
            var instance = entry.getValue();
            instance.lock.lock();
            try {
                stop(entry.getKey(), null);
            } catch (RuntimeException e) {
                LOG.warn("database {} did not stop cleanly: {}", entry.getKey(), e.toString());
            } finally {
                instance.lock.unlock();
            }
        }
    }
}
