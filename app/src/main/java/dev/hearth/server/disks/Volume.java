package dev.hearth.server.disks;

import dev.hearth.server.process.Commands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A directory on a file system that shares blocks between copies (reflinks: XFS made with
 * {@code reflink=1}, btrfs), so that copying a disk image or a checkpoint costs its metadata, not
 * its size. Where the data directory's own file system cannot (ext4), the directory is an XFS made
 * on a sparse image beside it, as large as the data directory's file system, and mounted there again
 * at every start. A directory that already held files on a file system without reflinks is left as
 * it is: its copies stay full copies.
 */
public final class Volume {
    private static final Logger LOG = LoggerFactory.getLogger(Volume.class);
    private static final Duration QUICK = Duration.ofSeconds(60);

    private final Path dir;
    private final boolean shares;

    private Volume(Path dir, boolean shares) {
        this.dir = dir;
        this.shares = shares;
    }

    /** Makes {@code dir} a directory on a reflink file system if it can be; {@code image} backs it if need be. */
    public static Volume ensure(Path dir, Path image) throws IOException {
        Files.createDirectories(dir);
        if (!Disks.mounted(dir) && Files.exists(image)) {
            Disks.loopMount(image, dir);
        } else if (!Disks.mounted(dir) && isEmpty(dir) && !sharesBlocks(dir.getParent())) {
            try {
                make(image, Files.getFileStore(dir.getParent()).getTotalSpace());
                Disks.loopMount(image, dir);
            } catch (Commands.Failure e) {
                Files.deleteIfExists(image);
                LOG.warn("cannot make an XFS volume for {} ({}); is xfsprogs installed?", dir, e.getMessage());
                return new Volume(dir, false);
            }
            LOG.info("{} is on an XFS volume Hearth made ({}, sparse, {} GiB): copies of disks there share"
                            + " blocks. To grow it: truncate -s BIGGER {} && xfs_growfs {}", dir, image,
                    Files.size(image) >> 30, image, dir);
        }
        boolean shares = sharesBlocks(dir);
        if (!shares) {
            LOG.warn("{} is on a file system without reflinks: checkpoints, branches and forks copy every byte",
                    dir);
        }
        return new Volume(dir, shares);
    }

    public Path dir() {
        return dir;
    }

    /** Whether a copy on this volume shares its blocks with the original. */
    public boolean shares() {
        return shares;
    }

    /** Whether two files in {@code dir} can share blocks: tried with a clone of a small file. */
    static boolean sharesBlocks(Path dir) {
        Path probe = dir.resolve(".reflink-probe");
        Path copy = dir.resolve(".reflink-probe.copy");
        try {
            Files.writeString(probe, "probe");
            Files.deleteIfExists(copy);
            Blocks.clone(probe, copy);
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            try {
                Files.deleteIfExists(probe);
                Files.deleteIfExists(copy);
            } catch (IOException ignored) {
                // a probe file left behind is harmless
            }
        }
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }

    private static void make(Path image, long bytes) {
        Path making = image.resolveSibling(image.getFileName() + ".making");
        Disks.sparse(making, bytes);
        Commands.check(List.of("mkfs.xfs", "-q", "-f", "-m", "reflink=1", making.toString()), QUICK);
        try {
            Files.move(making, image);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
