package dev.hearth.server.network;

import dev.hearth.server.crypto.Secrets;
import dev.hearth.server.process.Commands;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An nftables table that only Hearth writes, put back whole when something else removed or
 * changed it (a firewall service reload, {@code nft flush ruleset}, a restart of Docker or ufw):
 * its owner keeps what the table should hold and writes it out as one batch ({@code whole}).
 * Changes go through {@link #change}, so that a change meeting a missing table puts it back and
 * succeeds; a watch looks at the table every second.
 */
final class OwnTable implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OwnTable.class);
    static final Duration WATCH_EVERY = Duration.ofSeconds(1);

    private final String name;
    private final Supplier<String> whole;
    private final ReentrantLock lock = new ReentrantLock();
    private Thread watch;
    // A digest of the table as listed after Hearth's last change; null until the next look reads it.
    private String listed;
    // Until Hearth made the table, there is nothing to put back.
    private boolean made;

    /** {@code name}: family and name, as in {@code inet hearth_…}. */
    OwnTable(String name, Supplier<String> whole) {
        this.name = name;
        this.whole = whole;
    }

    /** Starts looking at the table every second. */
    OwnTable watched() {
        watch = Thread.ofVirtual().name("nft-watch " + name).start(this::watch);
        return this;
    }

    /** Applies a change, then records it in the owner's model ({@code record}). */
    void change(String batch, Runnable record) {
        lock.lock();
        try {
            try {
                Nft.apply(batch);
            } catch (Commands.Failure e) {
                if (Nft.read("list table " + name).isPresent()) {
                    throw e;
                }
                record.run();
                LOG.warn("the nftables table {} is gone (removed by something other than Hearth): putting it back", name);
                putBack();
                return;
            }
            record.run();
            made = true;
            listed = null;
        } finally {
            lock.unlock();
        }
    }

    /** Records a change that replaces the owner's whole model ({@code record}), then writes the table out whole. */
    void replace(Runnable record) {
        lock.lock();
        try {
            record.run();
            Nft.apply(recreated(whole.get()));
            made = true;
            listed = null;
        } finally {
            lock.unlock();
        }
    }

    /** Stops looking at the table and removes it; then records that in the owner's model ({@code record}). */
    void drop(Runnable record) {
        close();
        lock.lock();
        try {
            made = false;
            Nft.apply(recreated(""));
            record.run();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Puts the table back when it is missing or differs from what Hearth's last change left; the
     * first look after a change only notes what the table is. Answers whether it had to.
     */
    boolean repairIfChanged() {
        lock.lock();
        try {
            if (!made) {
                return false;
            }
            var now = Nft.read("list table " + name).map(Secrets::sha256);
            if (now.isPresent() && (listed == null || listed.equals(now.get()))) {
                listed = now.get();
                return false;
            }
            LOG.warn("the nftables table {} was {} by something other than Hearth: putting it back", name,
                    now.isEmpty() ? "removed" : "changed");
            putBack();
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void putBack() {
        Nft.apply(recreated(whole.get()));
        listed = null;
    }

    /** One batch: the table emptied whether or not it exists ({@code add} first), then {@code body}. */
    private String recreated(String body) {
        return "add table " + name + "\ndelete table " + name + "\n" + body;
    }

    private void watch() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(WATCH_EVERY);
                repairIfChanged();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.warn("cannot check or put back the nftables table {}: {}", name, e.getMessage());
            }
        }
    }

    /** Stops looking; the table stays. */
    @Override
    public void close() {
        if (watch != null) {
            watch.interrupt();
        }
    }
}
