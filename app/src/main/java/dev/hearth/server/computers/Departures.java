package dev.hearth.server.computers;

import dev.hearth.fs.Disk;
import dev.hearth.fs.Tar;
import dev.hearth.server.nodes.LocalNode;
import dev.hearth.server.nodes.Node;
import dev.hearth.server.nodes.Shipments;
import dev.hearth.server.process.Rounds;
import java.io.FilterInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * While an operator drains this node, its sleeping computers move to other nodes: a warm sleeper
 * goes cold first, then its files (see {@link Luggage}) stream to the node placement picks, which
 * records the computer as its own; only then are they removed here. A computer that is awake stays
 * until it sleeps (its memory is in a running sandbox), and one that wakes during its move waits for
 * the move and wakes on its new node. A move that fails leaves the computer here, tried again
 * after {@link #RETRY}.
 */
final class Departures {
    private static final Logger LOG = LoggerFactory.getLogger(Departures.class);
    static final Duration EVERY = Duration.ofSeconds(2);

    private final ComputerParts parts;
    private final LocalNode node;
    private final Shipments shipments;
    // After a failed move, the computer is tried again no sooner than this (a refusal tends to repeat).
    static final Duration RETRY = Duration.ofMinutes(1);
    private final Map<String, Long> failedAt = new ConcurrentHashMap<>();
    private volatile Thread thread;
    private boolean stuck;

    Departures(ComputerParts parts, LocalNode node, Shipments shipments) {
        this.parts = parts;
        this.node = node;
        this.shipments = shipments;
    }

    void start() {
        thread = Rounds.every("departures", EVERY, LOG, "moving computers off this draining node failed", this::pass);
    }

    void stop() {
        if (thread != null) {
            thread.interrupt();
        }
    }

    private void pass() {
        if (!node.draining()) {
            return;
        }
        for (var c : parts.records().live()) {
            Long failed = failedAt.get(c.id());
            if (!c.phase().asleep()
                    || failed != null && System.nanoTime() - failed < RETRY.toNanos()) {
                continue;
            }
            if (c.sleepsWarm()) {
                parts.sleeps().deepen(c.id()); // moves on the next pass
                continue;
            }
            var to = node.moveTarget();
            if (to.isEmpty()) {
                if (!stuck) {
                    LOG.warn("node {} drains, but no other node is up and takes work: its sleeping computers stay",
                            node.name());
                }
                stuck = true;
                return;
            }
            stuck = false;
            parts.gates().locked(c.id(), () -> move(c.id(), to.get()));
        }
    }

    /** Under the computer's gate: sends it if it still sleeps cold here, and lets go of it once it is there's. */
    private Void move(String computerId, Node to) {
        var c = parts.records().current(computerId);
        if (c.phase() != Phase.ASLEEP_COLD || !parts.records().runsHere(c)) {
            return null;
        }
        var dirs = parts.dirs();
        var luggage = Luggage.of(c, parts.checkpoints().wholeOf(c.id()), dirs, parts.images()::unpackedAt);
        for (Path piece : luggage.pieces()) {
            if (piece.startsWith(dirs.checkpoints()) || piece.equals(dirs.computer(c.id()))) {
                Path image = piece.equals(dirs.computer(c.id())) ? dirs.sleepImage(c.id()) : piece.resolve("image");
                AgentHolders.carrySecret(image, parts.agents()::secret);
            }
        }
        LOG.info("computer {} ({}) moves to node {}", c.name(), c.id(), to.name());
        try {
            let(c);
            var sent = luggage.toSend(dirs, c.id(), image -> lacks(to, image));
            long start = System.nanoTime();
            long bytes = send(to, c.id(), sent.names(dirs));
            LOG.info("computer {} ({}): {} MiB sent to node {} in {} ms", c.name(), c.id(), bytes >> 20, to.name(),
                    (System.nanoTime() - start) / 1_000_000);
        } catch (Shipments.Refused | IOException | RuntimeException e) {
            if (parts.records().runsHere(parts.records().current(computerId))) {
                LOG.warn("computer {} ({}) could not move to node {}; it stays here: {}", c.name(), c.id(),
                        to.name(), e.getMessage());
                keep(c);
                failedAt.put(c.id(), System.nanoTime());
                return null;
            }
        }
        failedAt.remove(c.id());
        removeHere(c, luggage);
        parts.gates().departed(c.id(), () -> parts.records().here(parts.records().current(computerId)));
        LOG.info("computer {} ({}) moved to node {}", c.name(), c.id(), to.name());
        return null;
    }

    private boolean lacks(Node to, Path imageDir) {
        String digest = imageDir.getFileName().toString().replaceFirst("-", ":");
        try {
            return !shipments.hasImage(to, digest);
        } catch (Shipments.Refused e) {
            return true;
        }
    }

    /** Its network and disk let go of here, so that nothing changes what is sent, nor clashes on the new node. */
    private void let(Computer c) {
        var runtime = parts.access().get();
        parts.networking().detach(c);
        runtime.removeNetwork(c.slot());
        if (!runtime.releaseDisk(parts.dirs().computer(c.id()))) {
            throw new IllegalStateException("the disk of computer " + c.name() + " is busy");
        }
    }

    /** A move that failed: the computer is this node's as before. */
    private void keep(Computer c) {
        try {
            parts.disks().disk(c);
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot mount the disk of computer {} again; its wake tries again", c.name(), e);
        }
        parts.networking().attach(c);
        parts.networking().asleep(c, true);
    }

    /** Streams the pieces to {@code to}; answers how many bytes went (tar's, holes left out). */
    private long send(Node to, String computerId, List<String> names) throws Shipments.Refused, IOException {
        var tar = Tar.create(parts.dirs().root(), names);
        var counted = new AtomicLong();
        try (var out = new FilterInputStream(tar.getInputStream()) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                counted.addAndGet(Math.max(n, 0));
                return n;
            }
        }) {
            shipments.computer(to, computerId, out);
            Tar.finish(tar, "tar of " + names);
            return counted.get();
        }
    }

    private void removeHere(Computer c, Luggage luggage) {
        for (Path piece : luggage.pieces()) {
            if (!piece.startsWith(parts.dirs().root().resolve("images"))) {
                Disk.deleteTree(piece);
            }
        }
    }
}
