package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.fs.Disk;
import dev.hearth.server.nodes.Cargo;
import dev.hearth.server.process.Commands;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's side of a computer moving here from a draining node: the tar stream is unpacked into
 * {@code arrivals/<id>} (beside, never over, anything live), each expected piece put in its place,
 * then the store records the computer here, all under its gate. Whatever fails leaves the computer
 * the sending node's, and what arrived is removed.
 */
final class ComputerArrivals implements Cargo {
    private static final Logger LOG = LoggerFactory.getLogger(ComputerArrivals.class);
    private static final Duration MOVE = Duration.ofMinutes(1);
    private static final long TAR_SECONDS = 3600;

    private final ComputerParts parts;

    ComputerArrivals(ComputerParts parts) {
        this.parts = parts;
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
    public void receiveComputer(String computerId, String from, InputStream tar) throws IOException {
        parts.access().get();
        parts.gates().locked(computerId, () -> {
            var c = parts.records().current(computerId);
            if (!c.node().equals(from) || !c.is(ComputerState.SLEEPING) || c.sleepsWarm() || c.deleted()) {
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
        return parts.dirs().root().resolve("arrivals");
    }

    private static void unpack(InputStream tar, Path staging) throws IOException {
        Disk.deleteTree(staging);
        Files.createDirectories(staging);
        var process = new ProcessBuilder("tar", "-x", "-C", staging.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
        try (var in = process.getOutputStream()) {
            tar.transferTo(in);
        } catch (IOException e) {
            process.destroyForcibly();
            throw e;
        }
        try {
            if (!process.waitFor(TAR_SECONDS, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IOException("the files sent could not be unpacked (tar exited " + process.exitValue() + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while unpacking");
        } finally {
            process.destroyForcibly();
        }
    }

    /**
     * Moves each expected piece that arrived into its place; anything else that came is left to be
     * deleted. What this node still had of the computer (from an earlier stay) is a leftover: the
     * store says the computer is the sending node's.
     */
    private void place(Computer c, Luggage luggage, Path staging, List<Path> placed) {
        var dirs = parts.dirs();
        parts.access().get().releaseDisk(dirs.computer(c.id()));
        for (Path piece : luggage.pieces()) {
            Path arrived = staging.resolve(dirs.root().relativize(piece));
            boolean image = piece.startsWith(dirs.root().resolve("images"));
            if (!Files.exists(arrived) || image && Files.exists(piece)) {
                continue; // images never change: one unpacked here already is the same
            }
            if (!image) {
                Disk.deleteTree(piece);
                placed.add(piece);
            }
            Commands.check(List.of("mkdir", "-p", piece.getParent().toString()), MOVE);
            Commands.check(List.of("mv", "-T", arrived.toString(), piece.toString()), MOVE);
        }
    }

    private void undo(Computer c, List<Path> placed) {
        parts.access().get().releaseDisk(parts.dirs().computer(c.id()));
        placed.forEach(Disk::deleteTree);
    }
}
