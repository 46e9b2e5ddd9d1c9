package dev.hearth.server.nodes;

import dev.hearth.api.nodes.NodeCapacity;
import dev.hearth.server.store.Constraints;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This process's hold on its node's row: taken at start (refused while another live process holds
 * the name), renewed every third of the lease, released at close so the node shows down at once.
 */
public final class NodeLease implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodeLease.class);
    // Leases are real time whatever clock the server is given: other processes read them.
    private final Clock clock = Clock.systemUTC();
    private final NodeStore store = new NodeStore();
    private final Jdbi jdbi;
    private final NodeSettings settings;
    private final String instance = UUID.randomUUID().toString();
    private final ScheduledExecutorService renewals =
            Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("node-lease").factory());

    private final DataDirLock lock;

    private NodeLease(Jdbi jdbi, NodeSettings settings, DataDirLock lock) {
        this.jdbi = jdbi;
        this.settings = settings;
        this.lock = lock;
    }

    /**
     * Registers the node at {@code address} (its API; its router at {@code routerAddress}, its
     * databases' ports on {@code databaseAddress}) and starts renewing its lease. Throws when another
     * process uses the data directory, when the directory served another node, or when a live
     * process elsewhere holds the name. The row of this directory's previous process (which died,
     * since the directory was free) is taken over at once; another's once its lease lapses.
     */
    public static NodeLease take(Jdbi jdbi, NodeSettings settings, String address, String routerAddress,
                                 String databaseAddress, String publicUrl, Path dataDir) throws IOException {
        var lock = DataDirLock.take(dataDir);
        try {
            checkDataDir(dataDir, settings.name());
            var lease = new NodeLease(jdbi, settings, lock);
            Path previous = dataDir.resolve("node-instance");
            String before = Files.exists(previous) ? Files.readString(previous).strip() : lease.instance;
            lease.register(new NodeStore.Claim(settings.name(), address, routerAddress, databaseAddress, publicUrl,
                    lease.instance, capacity(dataDir, settings)), before);
            // Bound only once registered: a start refused for a name in use leaves the directory free to pick another.
            Files.writeString(dataDir.resolve("node"), settings.name() + "\n");
            Files.writeString(previous, lease.instance + "\n");
            long period = Math.max(100, settings.lease().toMillis() / 3);
            lease.renewals.scheduleWithFixedDelay(lease::renew, period, period, TimeUnit.MILLISECONDS);
            return lease;
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    private void register(NodeStore.Claim claim, String previous) {
        Instant deadline = now().plus(settings.lease()).plusSeconds(1);
        boolean told = false;
        while (true) {
            Instant now = now();
            if (jdbi.inTransaction(h -> store.takeOver(h, claim, previous, now, now.plus(settings.lease())))
                    || inserted(claim, now)) {
                return;
            }
            var holder = jdbi.withHandle(h -> store.find(h, claim.name(), now)).orElseThrow();
            if (now.isAfter(deadline)) {
                throw new IllegalStateException("node " + claim.name() + " is up at " + holder.address()
                        + " (its lease runs until " + holder.leaseUntil() + "): stop that process, or give this one "
                        + "another --node and its own data directory");
            }
            if (!told) {
                LOG.warn("node {} is held by another process at {} until {}; waiting for its lease to lapse",
                        claim.name(), holder.address(), holder.leaseUntil());
                told = true;
            }
            sleep();
        }
    }

    private boolean inserted(NodeStore.Claim claim, Instant now) {
        try {
            jdbi.useTransaction(h -> store.insert(h, claim, now, now.plus(settings.lease())));
            return true;
        } catch (JdbiException e) {
            if (Constraints.isUniqueViolation(e)) {
                return false;
            }
            throw e;
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the node's lease", e);
        }
    }

    private void renew() {
        try {
            boolean held = jdbi.inTransaction(h -> store.renew(h, settings.name(), instance, now().plus(settings.lease())));
            if (!held) {
                LOG.error("node {} was taken over by another process after this one's lease lapsed; "
                        + "stop one of them", settings.name());
            }
        } catch (RuntimeException e) {
            LOG.warn("renewing node {}'s lease failed; will retry", settings.name(), e);
        }
    }

    /**
     * A data directory holds one node's computers and clusters, so it serves that node only; one
     * that served before nodes had names (it has computers' or databases' directories) served the default one.
     */
    /** Whether a hearth serve (of this process or another) holds the data directory now. */
    public static boolean served(Path dataDir) throws IOException {
        if (!Files.exists(dataDir.resolve("serve.lock"))) {
            return false; // a server makes it before anything else: leave a directory none served as it was
        }
        try (var lock = DataDirLock.take(dataDir)) {
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }

    static void checkDataDir(Path dataDir, String name) throws IOException {
        // Only checked here: the name is written once the node is registered.
        boolean served = Files.exists(dataDir.resolve("node")) || Files.exists(dataDir.resolve("runsc"))
                || Files.exists(dataDir.resolve("databases"));
        String bound = served ? nodeOf(dataDir) : name;
        if (!bound.equals(name)) {
            throw new IllegalStateException("data directory " + dataDir + " holds node " + bound
                    + "'s computers and databases; start it with --node " + bound);
        }
    }

    private static NodeCapacity capacity(Path dataDir, NodeSettings settings) throws IOException {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return new NodeCapacity(settings.memoryMb().map(mb -> mb << 20).orElse(os.getTotalMemorySize()), Runtime.getRuntime().availableProcessors(),
                Files.getFileStore(dataDir).getTotalSpace());
    }

    /** The node this lease holds, as the rest of the server asks about it. */
    public LocalNode local() {
        return new LocalNode(settings.name(), jdbi, store, clock);
    }

    /** The node a data directory serves (for commands run beside it, such as hearth admin). */
    public static String nodeOf(Path dataDir) throws IOException {
        Path file = dataDir.resolve("node");
        return Files.exists(file) ? Files.readString(file).strip() : NodeSettings.DEFAULT_NAME;
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }

    @Override
    public void close() {
        renewals.shutdownNow();
        try {
            jdbi.useTransaction(h -> store.release(h, settings.name(), instance, now()));
        } catch (RuntimeException e) {
            LOG.warn("could not release node {}'s lease; it shows down when the lease lapses", settings.name(), e);
        }
        lock.close();
    }
}
