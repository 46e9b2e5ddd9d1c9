package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.Validate;
import dev.hearth.fs.Disk;
import dev.hearth.server.disks.Blocks;
import dev.hearth.server.disks.Disks;
import dev.hearth.server.postgres.Clusters;
import dev.hearth.server.process.Commands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A database's two disks. Its cluster directory (data files, socket, log) is on one of {@code disk_mb}:
 * a table that outgrows it gets "could not extend file: No space left on device" and the cluster runs
 * on. Its WAL is on one of its own, because PostgreSQL PANICs when a WAL write fails; with WAL kept
 * apart, filling the data can never stop the cluster, and DROP makes room again at once (TRUNCATE needs
 * room for its new files first).
 */
final class DatabaseDisks {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseDisks.class);
    /** Four times {@code max_wal_size} (Clusters): WAL passes that target in a burst of writes before a checkpoint ends. */
    static final long WAL_BYTES = 1L << 30;
    private static final long MIB = 1L << 20;

    private static final String DATA_IMAGE = "data.img";
    private static final String WAL_IMAGE = "wal.img";

    private final Disks disks = new Disks();
    private final Layout layout;
    private final Clusters clusters;
    private final boolean shares;

    /** {@code shares}: whether the disks are on a volume whose copies share blocks (see Volume). */
    DatabaseDisks(Layout layout, Clusters clusters, boolean shares) {
        this.layout = layout;
        this.clusters = clusters;
        this.shares = shares;
    }

    /** Whether a checkpoint of this database can be a copy of its disks that shares their blocks. */
    boolean snapshots(String id) {
        return shares && Files.exists(layout.dataDisk(id)) && Files.exists(layout.walDisk(id));
    }

    /**
     * Copies a database's two disks into {@code into}, sharing their blocks, at one moment: the data
     * disk is frozen first and the WAL disk second, so the WAL copy holds every record the data copy
     * depends on (PostgreSQL writes WAL before data). Writers wait while both are frozen (milliseconds);
     * the copy starts as after a crash, and PostgreSQL's recovery makes it consistent.
     */
    void snapshot(String id, Path into) throws IOException {
        Files.createDirectories(into);
        Blocks.frozen(List.of(layout.cluster(id), layout.wal(id)), () -> {
            Blocks.clone(layout.dataDisk(id), into.resolve(DATA_IMAGE));
            Blocks.clone(layout.walDisk(id), into.resolve(WAL_IMAGE));
        });
    }

    /** Whether a checkpoint holds disks (made by {@link #snapshot}) rather than a copy of the data directory. */
    static boolean holdsDisks(Path checkpoint) {
        return Files.exists(checkpoint.resolve(DATA_IMAGE));
    }

    /** The size of the data disk a checkpoint holds a copy of, in MB; 0 if it holds files. */
    static long copiedMb(Path checkpoint) {
        try {
            return holdsDisks(checkpoint) ? Files.size(checkpoint.resolve(DATA_IMAGE)) >> 20 : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A disk only grows (at the cluster's next start). */
    static int grown(Integer requested, int current) {
        if (requested == null) {
            return current;
        }
        int disk = Validate.range("disk_mb", requested, DatabaseService.MIN_DISK_MB, DatabaseService.MAX_DISK_MB, current);
        if (disk < current) {
            throw ApiException.invalidField("disk_mb", "a disk only grows: at least " + current);
        }
        return disk;
    }

    /** A new database's disks as copies of a checkpoint's (sharing their blocks), mounted: its cluster is ready to start. */
    void restore(Path checkpoint, String id, int mb) throws IOException {
        disks.copy(checkpoint.resolve(DATA_IMAGE), layout.dataDisk(id));
        disks.copy(checkpoint.resolve(WAL_IMAGE), layout.walDisk(id));
        mount(id, mb);
        // Copied from a running cluster: its lock file names a postmaster that is not this one.
        Files.deleteIfExists(layout.data(id).resolve("postmaster.pid"));
    }

    /**
     * Mounts a database's cluster directory (its disk made first if new) and, once the cluster has files,
     * its WAL disk. A disk smaller than {@code mb} grows here when nothing holds it (the cluster stopped).
     */
    void mount(String id, int mb) throws IOException {
        long bytes = mb * MIB;
        if (Disks.smallerThan(layout.dataDisk(id), bytes) && !disks.unmount(layout.wal(id))) {
            LOG.warn("database {}: its WAL disk is busy; its disk grows at its next start", id);
        }
        Files.createDirectories(layout.disks());
        disks.prepare(layout.cluster(id), layout.dataDisk(id), bytes);
        clusters.privateDir(layout.cluster(id));
        if (Files.isDirectory(layout.data(id))) {
            mountWal(id);
        }
    }

    /** Moves a new cluster's WAL (copied from the template or a checkpoint with the rest) onto its own disk. */
    void moveWal(String id, int mb) throws IOException {
        if (mb == 0) {
            return;
        }
        Path wal = layout.wal(id);
        Path moving = layout.cluster(id).resolve("pg_wal.moving");
        Files.move(wal, moving);
        Files.createDirectory(wal);
        mountWal(id);
        Commands.check(List.of("cp", "-a", "-T", moving.toString(), wal.toString()), Duration.ofMinutes(2));
        Disk.deleteTree(moving);
    }

    /** Unmounts a stopped database's disks (to send them to another node); false when one is busy. */
    boolean release(String id) {
        return disks.unmount(layout.wal(id)) && disks.unmount(layout.cluster(id));
    }

    /** Whether both of the database's disk images are on this node. */
    boolean has(String id) {
        return Files.exists(layout.dataDisk(id)) && Files.exists(layout.walDisk(id));
    }

    /** Unmounts a database's disks and deletes them: what was on them is gone. */
    void remove(String id) {
        disks.remove(layout.wal(id), layout.walDisk(id));
        disks.remove(layout.cluster(id), layout.dataDisk(id));
    }

    /** Removes the disks (mounted or not) of every database not in {@code keep}. */
    void removeUnowned(Set<String> keep) {
        var unowned = new TreeSet<String>();
        if (!Files.isDirectory(layout.disks())) {
            return;
        }
        try (Stream<Path> images = Files.list(layout.disks())) {
            images.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".img"))
                    .map(n -> n.substring(0, n.indexOf('.'))).filter(id -> !keep.contains(id)).forEach(unowned::add);
        } catch (IOException e) {
            LOG.warn("cannot list {}: {}", layout.disks(), e.toString());
        }
        unowned.forEach(id -> {
            LOG.info("removing the disks of database {}: no database in the store owns them", id);
            remove(id);
        });
    }

    private void mountWal(String id) throws IOException {
        Path wal = layout.wal(id);
        disks.prepare(wal, layout.walDisk(id), WAL_BYTES);
        // PostgreSQL would take lost+found for a stray file in pg_wal; e2fsck makes it again when it needs one.
        Files.deleteIfExists(wal.resolve("lost+found"));
        clusters.privateDir(wal);
    }
}
