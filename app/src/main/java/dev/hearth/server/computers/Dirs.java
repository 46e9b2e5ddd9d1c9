package dev.hearth.server.computers;

import dev.hearth.fs.Disk;
import dev.hearth.server.process.Commands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where computers and their checkpoints live on disk: {@code computers/<id>/}, the mount point of
 * {@code disks/<id>.img} (the computer's own file system, of its disk_mb), holds a computer's sandbox
 * state, {@code data} (its /data), {@code sleep} (its sleep image); {@code checkpoints/<id>/} holds a
 * checkpoint's {@code image} (memory and overlay) and either {@code data} (a copy of /data's files)
 * or, where disks share blocks, {@code disks/checkpoints/<id>.img} (a copy of the computer's disk).
 */
record Dirs(Path computers, Path checkpoints, Path disks) {
    private static final Logger LOG = LoggerFactory.getLogger(Dirs.class);
    // Written into an image directory once it is whole: one without it is never restored.
    static final String COMPLETE = "hearth-complete";
    private static final Duration COPY_LIMIT = Duration.ofHours(1);

    static Dirs under(Path dataDir) {
        return new Dirs(dataDir.resolve("computers"), dataDir.resolve("checkpoints"), dataDir.resolve("disks"));
    }

    /** The data directory all of these are in. */
    Path root() {
        return computers.getParent();
    }

    Path computer(String computerId) {
        return computers.resolve(computerId);
    }

    Path data(String computerId) {
        return computer(computerId).resolve("data");
    }

    /** The file holding the file system mounted on {@link #computer}, for computers with a disk of their own. */
    Path disk(String computerId) {
        return disks.resolve(computerId + ".img");
    }

    Path sleepImage(String computerId) {
        return computer(computerId).resolve("sleep");
    }

    Path checkpoint(String checkpointId) {
        return checkpoints.resolve(checkpointId);
    }

    Path checkpointImage(String checkpointId) {
        return checkpoint(checkpointId).resolve("image");
    }

    Path checkpointData(String checkpointId) {
        return checkpoint(checkpointId).resolve("data");
    }

    /**
     * Where what another node sends is unpacked before it is put in place: on the disks' file
     * system, so that disk images (the bulk of it: /data) are put in place by a rename, not a copy.
     */
    Path arrivals() {
        return disks.resolve(".arrivals");
    }

    /** Beside the computers' disks: a copy shares blocks only within one file system. */
    Path checkpointDisks() {
        return disks.resolve("checkpoints");
    }

    Path checkpointDisk(String checkpointId) {
        return checkpointDisks().resolve(checkpointId + ".img");
    }

    static boolean complete(Path dir) {
        return Files.exists(dir.resolve(COMPLETE));
    }

    static void markComplete(Path dir) throws IOException {
        Files.writeString(dir.resolve(COMPLETE), "");
    }

    /**
     * Copies a tree with owners, modes and times; on file systems that share blocks (XFS, btrfs) the
     * copy is a reflink and takes no time or space. {@code to} must not exist.
     */
    static void copy(Path from, Path to) {
        Commands.check(List.of("cp", "-a", "--reflink=auto", from.toString(), to.toString()), COPY_LIMIT);
    }

    /** Removes the entries of {@code parent} not named in {@code keep}, saying which {@code owner} they lacked. */
    static void removeUnowned(Path parent, Set<String> keep, String owner) {
        if (!Files.isDirectory(parent)) {
            return;
        }
        try (var entries = Files.list(parent)) {
            for (Path entry : entries.toList()) {
                if (!keep.contains(entry.getFileName().toString())) {
                    LOG.warn("removing {}, which {} owns", entry, owner);
                    Disk.deleteTree(entry);
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot list {}", parent, e);
        }
    }

}
