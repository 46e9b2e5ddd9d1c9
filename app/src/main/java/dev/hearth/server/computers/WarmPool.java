package dev.hearth.server.computers;

import dev.hearth.fs.Disk;
import dev.hearth.server.images.Image;
import dev.hearth.server.images.Images;
import dev.hearth.server.network.NetworkPolicy;
import dev.hearth.server.pool.PoolSettings;
import dev.hearth.server.pool.PoolState;
import dev.hearth.server.pool.PooledSandbox;
import dev.hearth.server.store.Ids;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sandboxes booted before anyone asked for them, per image, so that a create claims one instead of
 * booting: a filler thread keeps each image's count, never on a request's path. A pooled sandbox runs
 * only Hearth's agent, on a slot with no rules, until a claim makes it a computer (see
 * {@link Boots#claim}). Only creates with the default resources are served: memory, CPUs and disk
 * are fixed at boot. What cannot be filled (image gone, memory short) is logged and served cold.
 */
final class WarmPool {
    private static final Logger LOG = LoggerFactory.getLogger(WarmPool.class);
    // How long a pool that could not be filled waits before it tries again.
    private static final long RETRY_SECONDS = 30;
    // The name a pooled sandbox has until its claim (its hostname and /etc/hosts say it).
    private static final String POOLED_NAME = "pooled";

    private final PoolSettings settings;
    private final ComputerRecords records;
    private final SandboxAccess access;
    private final Dirs dirs;
    private final Boots boots;
    private final Lifecycle lifecycle;
    private final ComputerImages images;
    private final LongSupplier availableMemory;
    private final long memoryReserve;
    // Why an image's pool is short, for hearth admin pool's readers of the log.
    private final Map<String, String> problems = new ConcurrentHashMap<>();
    private final Semaphore refill = new Semaphore(0);
    private volatile Thread filler;

    WarmPool(PoolSettings settings, ComputerRecords records, SandboxAccess access, Dirs dirs, Boots boots,
             Lifecycle lifecycle, ComputerImages images, LongSupplier availableMemory, long memoryReserve) {
        this.lifecycle = lifecycle;
        this.settings = settings;
        this.records = records;
        this.access = access;
        this.dirs = dirs;
        this.boots = boots;
        this.images = images;
        this.availableMemory = availableMemory;
        this.memoryReserve = memoryReserve;
    }

    /** Starts filling, after reconcile removed what an earlier run pooled (its rows go with it). */
    void start() {
        if (access.runtime().isEmpty()) {
            return;
        }
        pooled().forEach(this::discard);
        if (settings.empty()) {
            return;
        }
        filler = Thread.ofVirtual().name("warm-pool").start(this::fill);
    }

    /** Stops filling and removes the pooled sandboxes: nobody claims them once the server is gone. */
    void stop() {
        var thread = filler;
        if (thread == null) {
            return;
        }
        filler = null;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        pooled().forEach(this::discard);
    }

    /**
     * The computer {@code name}, made from a ready sandbox of the pool if one fits these settings in
     * this workspace: taken out of the pool with the computer's insert, so that another claim that
     * raced for it tries the next one.
     */
    Optional<Computer> claim(String workspace, String name, Computer.Settings set) {
        for (int tries = 0; tries < 3; tries++) {
            var pooled = candidate(workspace, set);
            if (pooled.isEmpty()) {
                return Optional.empty();
            }
            var inserted = records.insertClaimed(Computer.draft(pooled.get().id(), workspace, name, set, null,
                    new Computer.Lineage(null, null), records.now()), pooled.get());
            if (inserted.isPresent()) {
                refill.release();
                return Optional.of(lifecycle.claim(inserted.get().id(), images.ofPooled(pooled.get().image(),
                        pooled.get().imageDigest())));
            }
        }
        return Optional.empty();
    }

    private Optional<PooledSandbox> candidate(String workspace, Computer.Settings set) {
        if (filler == null || !set.resources().equals(ComputerInput.DEFAULT_RESOURCES)
                || !settings.sizes().containsKey(set.image())) {
            return Optional.empty();
        }
        return pooled().stream()
                .filter(p -> p.state() == PoolState.READY && p.image().equals(set.image()))
                .filter(p -> Images.isLocal(p.image()) || images.pulled(workspace, p.image())
                        .map(Image::digest).filter(p.imageDigest()::equals).isPresent())
                .findFirst();
    }

    Map<String, Integer> sizes() {
        return settings.sizes();
    }

    List<PooledSandbox> pooled() {
        return records.jdbi().withHandle(h -> records.pool().all(h));
    }

    Map<String, String> problems() {
        return Map.copyOf(problems);
    }

    private void fill() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                boolean short_ = false;
                for (var entry : settings.sizes().entrySet()) {
                    short_ |= !fillImage(entry.getKey(), entry.getValue());
                }
                refill.tryAcquire(short_ ? RETRY_SECONDS : Long.MAX_VALUE / 2, TimeUnit.SECONDS);
                refill.drainPermits();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Boots sandboxes of one image until it has {@code size}; false if it could not. */
    private boolean fillImage(String image, int size) {
        while (pooled().stream().filter(p -> p.image().equals(image)).count() < size) {
            if (Thread.currentThread().isInterrupted()) {
                return true;
            }
            long available = availableMemory.getAsLong();
            if (available < memoryReserve) {
                return shortOf(image, "the host has " + (available >> 20) + " MiB of memory available, under the "
                        + "reserve of " + (memoryReserve >> 20) + " MiB");
            }
            try {
                boot(image);
            } catch (RuntimeException e) {
                return shortOf(image, e.getMessage());
            }
        }
        problems.remove(image);
        return true;
    }

    private boolean shortOf(String image, String why) {
        if (!why.equals(problems.put(image, why))) {
            LOG.warn("the warm pool of {} cannot be filled: {}; creates of it start cold meanwhile", image, why);
        }
        return false;
    }

    private void boot(String image) {
        var resolved = images.forPool(image);
        var p = records.reservePooled(Ids.next(), image);
        try {
            if (!boots.startPooled(draft(p), resolved)) {
                throw new IllegalStateException("the agent of a pooled sandbox did not answer");
            }
            records.jdbi().useTransaction(h -> records.pool().markReady(h, p.id(), resolved.digest()));
        } catch (RuntimeException e) {
            discard(p);
            throw e;
        }
    }

    /** The computer a pooled sandbox boots as: its id, slot and the default resources, nobody's settings. */
    private Computer draft(PooledSandbox p) {
        var settings = new Computer.Settings(p.image(), Map.of(), List.of(), ComputerInput.DEFAULT_RESOURCES, false,
                null, NetworkPolicy.DEFAULT, Launch.IMAGE, Map.of(), Lifetime.NONE, true);
        return Computer.draft(p.id(), null, POOLED_NAME, settings, p.imageDigest(), new Computer.Lineage(null, null),
                p.createdAt()).placed(records.store().node(), p.slot());
    }

    /** Removes a pooled sandbox and everything it had; its row last, so that a crash leaves none unowned. */
    void discard(PooledSandbox p) {
        var c = draft(p);
        access.runtime().ifPresent(r -> {
            r.delete(c.sandboxId());
            r.removeNetwork(p.slot());
            r.removeDisk(dirs.computer(p.id()), dirs.disk(p.id()));
        });
        Disk.deleteTree(dirs.computer(p.id()));
        records.jdbi().useTransaction(h -> records.pool().delete(h, p.id()));
    }
}
