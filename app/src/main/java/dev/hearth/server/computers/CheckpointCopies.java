package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.checkpoints.CheckpointState;
import dev.hearth.fs.Disk;
import dev.hearth.fs.Tar;
import dev.hearth.server.nodes.Cargo;
import dev.hearth.server.nodes.LocalNode;
import dev.hearth.server.nodes.Shipments;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fork made on another node than its checkpoint's: that node asks the checkpoint's node for it
 * (its memory image, its /data or disk copy and, when it lacks it, the unpacked image) as one tar
 * stream, keeps it while the fork is made from it, and removes it after. The checkpoint itself
 * stays where it is.
 */
final class CheckpointCopies {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCopies.class);

    private final ComputerParts parts;
    private final LocalNode node;
    private volatile Shipments shipments;
    private final Map<String, Object> copying = new ConcurrentHashMap<>();

    CheckpointCopies(ComputerParts parts, LocalNode node) {
        this.parts = parts;
        this.node = node;
    }

    void shipVia(Shipments shipments) {
        this.shipments = shipments;
    }

    /** This node's side of a copy: the checkpoint's pieces as tar, when its computer is here. */
    Cargo.Shipment serve(String checkpointId, boolean withImage) {
        var k = parts.checkpoints().findIfAny(checkpointId).orElseThrow(() ->
                ApiException.notFound("checkpoint " + checkpointId));
        var source = parts.records().current(k.source());
        if (!k.is(CheckpointState.READY) || k.deletedAt() != null || !parts.records().runsHere(source)) {
            throw ApiException.notFound("checkpoint " + checkpointId + " on node " + node.name());
        }
        AgentHolders.carrySecret(parts.dirs().checkpointImage(k.id()), parts.agents()::secret);
        var dirs = parts.dirs();
        var names = pieces(k, withImage).pieces().stream().filter(Files::exists)
                .map(p -> dirs.root().relativize(p).toString()).toList();
        return out -> Tar.write(dirs.root(), names, out);
    }

    /**
     * Makes {@code fork} from a copy of checkpoint {@code k}, whose computer is on node {@code from}:
     * the copy is brought here first and removed after. Forks of one checkpoint here take turns, as
     * they would share the copy's places.
     */
    <T> T using(Checkpoint k, String from, Supplier<T> fork) {
        synchronized (copying.computeIfAbsent(k.id(), id -> new Object())) {
            fetch(k, from);
            try {
                return fork.get();
            } finally {
                parts.disks().discard(k.id());
            }
        }
    }

    /** Brings the checkpoint here (into the places of this node's own); 503 when its node cannot send it. */
    private void fetch(Checkpoint k, String from) {
        var sender = node.known(from).filter(n -> !n.isDown()).orElseThrow(() -> new ApiException(
                ErrorCode.NODE_UNAVAILABLE, "checkpoint " + k.name() + " is on node " + from + ", which is down"));
        boolean withImage = !parts.images().hasDigest(k.imageDigest());
        Path staging = parts.dirs().arrivals().resolve("checkpoint-" + k.id());
        var placed = new ArrayList<Path>();
        long start = System.nanoTime();
        try (var tar = shipments.checkpoint(sender, k.id(), withImage)) {
            Disk.deleteTree(staging);
            Tar.unpack(tar, staging);
            pieces(k, withImage).placeFrom(staging, parts.dirs(), placed);
        } catch (Shipments.Refused | IOException | RuntimeException e) {
            placed.forEach(Disk::deleteTree);
            throw new ApiException(ErrorCode.NODE_UNAVAILABLE, "checkpoint " + k.name() + " could not be copied "
                    + "from node " + from + ": " + e.getMessage());
        } finally {
            Disk.deleteTree(staging);
        }
        LOG.info("checkpoint {} ({}) copied from node {} in {} ms", k.name(), k.id(), from,
                (System.nanoTime() - start) / 1_000_000);
    }

    private Luggage pieces(Checkpoint k, boolean withImage) {
        var dirs = parts.dirs();
        var pieces = new ArrayList<>(List.of(dirs.checkpoint(k.id()), dirs.checkpointDisk(k.id())));
        if (withImage && k.imageDigest() != null) {
            pieces.add(parts.images().unpackedAt(k.imageDigest()));
        }
        return new Luggage(List.copyOf(pieces));
    }
}
