package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.fs.Disk;
import dev.hearth.fs.Tar;
import dev.hearth.server.nodes.Cargo;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's side of a computer moving here from a draining node: the tar stream is unpacked into
 * {@code disks/.arrivals/<id>} (beside, never over, anything live), each expected piece put in its place,
 * then the store records the computer here, all under its gate. Whatever fails leaves the computer
 * the sending node's, and what arrived is removed.
 */
final class ComputerArrivals implements Cargo {
    private static final Logger LOG = LoggerFactory.getLogger(ComputerArrivals.class);

    private final ComputerParts parts;
    private final CheckpointCopies copies;

    ComputerArrivals(ComputerParts parts, CheckpointCopies copies) {
        this.parts = parts;
        this.copies = copies;
    }

    /** Arrivals cut short by a stop; at start, before any arrive. */
    void reconcile() {
        Disk.deleteTree(staging());
    }

    @Override
    public boolean hasImage(String digest) {
        return parts.images().hasDigest(digest);
    }

    @Override
    public Shipment checkpoint(String checkpointId, boolean withImage) {
        parts.access().get();
        return copies.serve(checkpointId, withImage);
    }

    @Override
    public void receiveComputer(String computerId, String from, InputStream tar) throws IOException {
        parts.access().get();
        parts.gates().locked(computerId, () -> {
            var c = parts.records().current(computerId);
            if (!c.node().equals(from) || c.phase() != Phase.ASLEEP_COLD) {
                throw ApiException.conflict("computer " + computerId + " is not asleep cold on node " + from);
            }
            var luggage = Luggage.of(c, parts.checkpoints().wholeOf(c.id()), parts.dirs(), parts.images()::unpackedAt);
            Path staging = staging().resolve(computerId);
            var placed = new ArrayList<Path>();
            try {
                unpack(tar, staging);
                place(c, luggage, staging, placed);
                parts.disks().disk(c);
                if (!Dirs.complete(parts.dirs().sleepImage(c.id()))) {
                    throw new ApiException(ErrorCode.INVALID_REQUEST, "computer " + c.name() + " came without its sleep image");
                }
                if (!parts.records().jdbi().inTransaction(h -> parts.records().store().arrive(h, c.id(), from))) {
                    throw ApiException.conflict("computer " + c.name() + " changed on node " + from + " meanwhile");
                }
            } catch (IOException | RuntimeException e) {
                undo(c, placed);
                throw e instanceof ApiException api ? api : new ApiException(ErrorCode.RUNTIME_UNAVAILABLE,
                        "computer " + c.name() + " could not arrive: " + e.getMessage());
            } finally {
                Disk.deleteTree(staging);
            }
            var here = parts.records().current(computerId);
            parts.networking().attach(here);
            parts.networking().asleep(here, true);
            LOG.info("computer {} ({}) arrived from node {}", c.name(), c.id(), from);
            return null;
        });
    }

    private Path staging() {
        return parts.dirs().arrivals();
    }

    private static void unpack(InputStream tar, Path staging) throws IOException {
        Disk.deleteTree(staging);
        Tar.unpack(tar, staging);
    }

    /**
     * Puts what arrived in place. What this node still had of the computer (from an earlier stay) is
     * a leftover: the store says the computer is the sending node's.
     */
    private void place(Computer c, Luggage luggage, Path staging, List<Path> placed) {
        parts.access().get().releaseDisk(parts.dirs().computer(c.id()));
        luggage.placeFrom(staging, parts.dirs(), placed);
    }

    private void undo(Computer c, List<Path> placed) {
        parts.access().get().releaseDisk(parts.dirs().computer(c.id()));
        placed.forEach(Disk::deleteTree);
    }
}
