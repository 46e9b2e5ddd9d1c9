package dev.hearth.server.disks;

import dev.hearth.fs.Disk;
import dev.hearth.server.process.Commands;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A disk: a sparse file holding an ext4 file system, loop-mounted over a directory (a sandbox's state, a
 * database's cluster), so that everything written there meets ENOSPC at its size and the host's disk
 * never fills. Making one costs about 60 ms (mkfs of an empty sparse file); blocks are taken
 * only as they are written.
 */
public final class Disks {
    private static final Logger LOG = LoggerFactory.getLogger(Disks.class);
    private static final Duration QUICK = Duration.ofSeconds(30);
    private static final Path MOUNTS = Path.of("/proc/self/mountinfo");

    /**
     * Mounts {@code image} (made first if missing) on {@code dir}. One smaller than {@code bytes} is grown
     * first, which needs it unmounted: done when nothing holds it (before a start); otherwise it stays.
     */
    public void prepare(Path dir, Path image, long bytes) {
        try {
            Files.createDirectories(dir);
            if (mounted(dir) && (Files.size(image) >= bytes || !unmount(dir))) {
                return;
            }
            if (!Files.exists(image)) {
                make(image, bytes);
            } else if (Files.size(image) < bytes) {
                grow(image, bytes);
            }
            loopMount(image, dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code copy} (new) becomes the disk mounted on {@code dir}, kept in {@code image}, as it is at one
     * instant: its file system is frozen (flushed, writers waiting) while the image is cloned, once
     * what it held in memory was written down with writers going on ({@link Blocks#flush}). Both
     * images must be on a volume whose copies share blocks ({@link Volume#shares}): it takes milliseconds,
     * whatever the disk holds.
     */
    public void snapshot(Path dir, Path image, Path copy) {
        try {
            Files.createDirectories(copy.getParent());
            Blocks.flush(List.of(dir), List.of(image));
            Blocks.frozen(List.of(dir), () -> Blocks.clone(image, copy));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code image} (new, unmounted) becomes a copy of the disk image {@code from}, sharing its blocks. */
    public void copy(Path from, Path image) {
        try {
            Files.createDirectories(image.getParent());
            Blocks.clone(from, image);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Unmounts {@code dir} and deletes {@code image}; what was on it is gone. */
    public void remove(Path dir, Path image) {
        if (!unmount(dir)) {
            // Still held (a process of a dying sandbox): detached now, freed when the last user lets go.
            LOG.warn("{} was busy; detaching it lazily", dir);
            Commands.check(List.of("umount", "-l", dir.toString()), QUICK);
        }
        Disk.deleteTree(image);
    }

    /** Unmounts {@code dir} if it is a mount point; false if it is still held. */
    public boolean unmount(Path dir) {
        return !mounted(dir) || Commands.run(List.of("umount", dir.toString()), QUICK).ok();
    }

    /** Whether {@code image} exists and is smaller than {@code bytes} (it would be grown at its next mount). */
    public static boolean smallerThan(Path image, long bytes) {
        try {
            return Files.exists(image) && Files.size(image) < bytes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Grows an unmounted file system (online growth needs CAP_SYS_RESOURCE, which a host may withhold). */
    private static void grow(Path image, long bytes) {
        sparse(image, bytes);
        Commands.check(List.of("e2fsck", "-f", "-p", image.toString()), Duration.ofMinutes(5));
        Commands.check(List.of("resize2fs", image.toString()), Duration.ofMinutes(5));
    }

    private static void make(Path image, long bytes) throws IOException {
        Files.createDirectories(image.getParent());
        Path making = image.resolveSibling(image.getFileName() + ".making");
        sparse(making, bytes);
        // No reserved blocks (the sandbox's root may use it all); lazy init keeps mkfs from writing the whole size.
        Commands.check(List.of("mkfs.ext4", "-q", "-F", "-m", "0", "-E",
                "lazy_itable_init=1,lazy_journal_init=1,nodiscard", making.toString()), Duration.ofMinutes(1));
        Files.move(making, image);
    }

    /** Sets a file's length; what it grows by takes no blocks until written. */
    static void sparse(Path file, long bytes) {
        try (var f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void loopMount(Path image, Path dir) {
        Commands.check(List.of("mount", "-o", "loop,nodev", image.toString(), dir.toString()), QUICK);
    }

    /** The mount points strictly under {@code dir}. */
    static List<Path> mountPointsUnder(Path dir) {
        try {
            String under = dir.toAbsolutePath().normalize() + "/";
            return Files.readAllLines(MOUNTS).stream().map(l -> l.split(" ")).filter(f -> f.length > 4)
                    .map(f -> f[4].replace("\\040", " ")).filter(m -> m.startsWith(under)).map(Path::of).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static boolean mounted(Path dir) {
        try {
            String target = dir.toAbsolutePath().normalize().toString();
            // The fifth field of each line is the mount point (spaces escaped as \040).
            return Files.readAllLines(MOUNTS).stream().map(l -> l.split(" "))
                    .anyMatch(f -> f.length > 4 && f[4].replace("\\040", " ").equals(target));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
