package dev.hearth.server.computers;

import dev.hearth.fs.Disk;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * A computer's disk: a file system of its disk_mb mounted on its directory, made when it is new; and
 * /data on it taken into a checkpoint and given back to a computer (a fork, a restore). Where
 * disks share blocks (on the disks' XFS volume), a checkpoint keeps a copy of the computer's whole
 * disk, taken at one instant in milliseconds however much /data holds, and a computer made from it
 * gets a copy of that copy: its /data as it was, the rest of that disk (the sandbox's state of then)
 * cleared. Elsewhere /data's files are copied.
 */
final class ComputerDisks {
    // What a disk holds besides /data that outlives a boot: nothing but ext4's own directory.
    private static final Set<String> KEPT = Set.of("data", "lost+found");
    private static final String STAGED = ".restoring";

    private final SandboxAccess access;
    private final Dirs dirs;

    ComputerDisks(SandboxAccess access, Dirs dirs) {
        this.access = access;
        this.dirs = dirs;
    }

    /** The computer's directory, on a file system of its disk_mb (mounted if it is not, made if it is new). */
    Path disk(Computer computer) throws IOException {
        Path dir = dirs.computer(computer.id());
        int mb = computer.settings().resources().diskMb();
        access.get().prepareDisk(dir, dirs.disk(computer.id()), (long) mb << 20);
        return dir;
    }

    /** An empty disk in place of whatever the computer had (a fork's first boot, tried again). */
    Path freshDisk(Computer computer) throws IOException {
        access.get().removeDisk(dirs.computer(computer.id()), dirs.disk(computer.id()));
        Disk.deleteTree(dirs.computer(computer.id()));
        return disk(computer);
    }

    /** Takes /data of {@code computer}, paused or asleep, into checkpoint {@code checkpointId}. */
    void take(Computer computer, String checkpointId) throws IOException {
        var runtime = access.get();
        if (runtime.disksShare()) {
            Path dir = disk(computer); // mounted: a freeze of an unmounted one would freeze its parent's
            runtime.snapshotDisk(dir, dirs.disk(computer.id()), dirs.checkpointDisk(checkpointId));
        } else {
            Dirs.copy(dirs.data(computer.id()), dirs.checkpointData(checkpointId));
        }
    }

    boolean holdsDisk(String checkpointId) {
        return Files.exists(dirs.checkpointDisk(checkpointId));
    }

    /** The size in MB of the disk a checkpoint holds; 0 when it holds /data's files. */
    int diskMb(String checkpointId) {
        try {
            return holdsDisk(checkpointId) ? (int) (Files.size(dirs.checkpointDisk(checkpointId)) >> 20) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A new computer's disk (no sandbox runs on it) holding the checkpoint's /data, mounted. */
    void intoNew(String checkpointId, Computer computer) throws IOException {
        if (!holdsDisk(checkpointId)) {
            freshDisk(computer);
            Dirs.copy(dirs.checkpointData(checkpointId), dirs.data(computer.id()));
            return;
        }
        var runtime = access.get();
        runtime.removeDisk(dirs.computer(computer.id()), dirs.disk(computer.id()));
        Disk.deleteTree(dirs.computer(computer.id()));
        runtime.copyDisk(dirs.checkpointDisk(checkpointId), dirs.disk(computer.id()));
        adopt(computer);
    }

    /**
     * The checkpoint's /data made ready beside the computer's own, before anything of it is stopped:
     * a copy that fails (disk full) leaves the computer as it was. {@link #swap} puts it in place.
     */
    Path stage(String checkpointId, String computerId) throws IOException {
        if (holdsDisk(checkpointId)) {
            Path staged = dirs.disk(computerId).resolveSibling(computerId + ".img" + STAGED);
            Files.deleteIfExists(staged);
            access.get().copyDisk(dirs.checkpointDisk(checkpointId), staged);
            return staged;
        }
        Path staged = dirs.computer(computerId).resolve("data" + STAGED);
        Disk.deleteTree(staged);
        try {
            Dirs.copy(dirs.checkpointData(checkpointId), staged);
        } catch (RuntimeException e) {
            Disk.deleteTree(staged);
            throw e;
        }
        return staged;
    }

    /** Puts what {@link #stage} made in place of the computer's /data; its sandbox is gone. */
    void swap(Computer computer, Path staged) throws IOException {
        if (staged.startsWith(dirs.disks())) {
            access.get().removeDisk(dirs.computer(computer.id()), dirs.disk(computer.id()));
            Files.move(staged, dirs.disk(computer.id()));
            adopt(computer);
            return;
        }
        Path data = dirs.data(computer.id());
        Path old = dirs.computer(computer.id()).resolve("data.old");
        Disk.deleteTree(old);
        if (Files.exists(data)) {
            Files.move(data, old);
        }
        Files.move(staged, data);
        Disk.deleteTree(old);
    }

    /** Deletes what a checkpoint holds: its directory and its disk. */
    void discard(String checkpointId) {
        Disk.deleteTree(dirs.checkpoint(checkpointId));
        Disk.deleteTree(dirs.checkpointDisk(checkpointId));
    }

    /** Mounts a copied disk as the computer's (grown to its disk_mb) and clears all but /data. */
    private void adopt(Computer computer) throws IOException {
        Path dir = disk(computer);
        try (var entries = Files.list(dir)) {
            for (Path entry : entries.toList()) {
                if (!KEPT.contains(entry.getFileName().toString())) {
                    Disk.deleteTree(entry);
                }
            }
        }
    }
}
