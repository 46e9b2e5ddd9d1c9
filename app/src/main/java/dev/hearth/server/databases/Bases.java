package dev.hearth.server.databases;

import dev.hearth.fs.Disk;
import dev.hearth.server.postgres.ClusterStats;
import dev.hearth.server.postgres.RecoveryTarget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bases a database's history is replayed from: copies of its two disks that share their blocks
 * (as checkpoints are), in {@code history/<id>/bases/<epoch millis>/}, each with the WAL file its
 * recovery starts at. A branch or restore at a moment copies the newest base made at or before it and
 * replays the archived WAL from there, so bases are made often enough to bound that WAL: when the
 * database is made, then while it is awake every {@link #EVERY} if it wrote anything, and as soon as
 * {@link #WAL_BOUND} of WAL was written since the last one. Bases and WAL older than the window go,
 * but for the newest base before it (a restore to the window's start needs it).
 */
final class Bases {
    private static final Logger LOG = LoggerFactory.getLogger(Bases.class);
    static final Duration EVERY = Duration.ofMinutes(15);
    /** About 3 to 6 s of replay at the 40 to 80 MiB/s measured here. */
    static final long WAL_BOUND = 256L << 20;
    private static final String REDO = "redo";

    /** One base: when it was made (its copy holds nothing later), and where recovery from it starts. */
    record Base(Instant takenAt, String redoFile, String lsn, Path dir) {
    }

    private final Layout layout;
    private final DatabaseDisks disks;

    Bases(Layout layout, DatabaseDisks disks) {
        this.layout = layout;
        this.disks = disks;
    }

    /** Whether the database can keep a history: it has disks on a volume whose copies share blocks. */
    boolean kept(String id) {
        return disks.snapshots(id);
    }

    /**
     * Makes a base of a database whose cluster the caller holds still (its lock), with the redo point
     * read just before; it is dated when the copy is done, so that it holds nothing later than its date.
     */
    Base take(String id, ClusterStats.Redo redo, Clock clock) throws IOException {
        Path making = Files.createDirectories(layout.bases(id)).resolve("making");
        Disk.deleteTree(making);
        disks.snapshot(id, making);
        Files.writeString(making.resolve(REDO), redo.walFile() + "\n" + (redo.lsn() == null ? "" : redo.lsn()) + "\n");
        Instant takenAt = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Path dir = layout.bases(id).resolve(Long.toString(takenAt.toEpochMilli()));
        Files.move(making, dir);
        return new Base(takenAt, redo.walFile(), redo.lsn(), dir);
    }

    /** The database's bases, oldest first. */
    List<Base> of(String id) {
        Path dir = layout.bases(id);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(p -> p.getFileName().toString().matches("\\d+") && Files.exists(p.resolve(REDO)))
                    .map(Bases::read).sorted(Comparator.comparing(Base::takenAt)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The newest base made at or before {@code at}. */
    Optional<Base> before(String id, Instant at) {
        return of(id).stream().filter(b -> !b.takenAt().isAfter(at)).reduce((older, newer) -> newer);
    }

    /** The newest base whose redo point is at or before {@code target} (bases made before LSNs were kept have none). */
    Optional<Base> before(String id, RecoveryTarget.Lsn target) {
        return of(id).stream().filter(b -> b.lsn() != null && new RecoveryTarget.Lsn(b.lsn()).bytes() <= target.bytes())
                .reduce((older, newer) -> newer);
    }

    /** The redo point of the database's oldest base that has one, X/Y. */
    Optional<String> firstLsn(String id) {
        return of(id).stream().map(Base::lsn).filter(lsn -> lsn != null).findFirst();
    }

    /**
     * Drops what a restore to a moment after {@code windowStart} cannot need: bases older than the newest
     * base at or before it, and archived segments older than the oldest kept base's redo point.
     */
    void prune(String id, Instant windowStart) {
        var bases = of(id);
        var oldestKept = before(id, windowStart).or(() -> bases.stream().findFirst());
        if (oldestKept.isEmpty()) {
            return;
        }
        for (var base : bases) {
            if (base.takenAt().isBefore(oldestKept.get().takenAt())) {
                Disk.deleteTree(base.dir());
            }
        }
        String keepFrom = segment(oldestKept.get().redoFile());
        try (Stream<Path> files = Files.list(layout.archive(id))) {
            files.filter(p -> isSegment(p) && segment(p.getFileName().toString()).compareTo(keepFrom) < 0)
                    .forEach(p -> {
                        try {
                            Files.deleteIfExists(p);
                        } catch (IOException e) {
                            LOG.warn("database {}: cannot prune {}: {}", id, p, e.toString());
                        }
                    });
        } catch (IOException noArchiveYet) {
            LOG.debug("database {}: no archive to prune: {}", id, noArchiveYet.toString());
        }
    }

    /** Bytes of archived WAL the database keeps. */
    long archiveBytes(String id) {
        try {
            return Files.isDirectory(layout.archive(id)) ? Disk.size(layout.archive(id)) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** Bytes of WAL between a base's LSN and {@code lsn} (both PostgreSQL's X/Y form). */
    static long walSince(Base base, String lsn) {
        return base.lsn() == null || lsn == null ? Long.MAX_VALUE
                : Math.max(0, new RecoveryTarget.Lsn(lsn).bytes() - new RecoveryTarget.Lsn(base.lsn()).bytes());
    }

    private static boolean isSegment(Path p) {
        String name = p.getFileName().toString();
        return name.length() >= 24 && name.substring(0, 24).matches("[0-9A-F]{24}") && !name.endsWith(".history");
    }

    // The log and segment numbers of a WAL file's name, whatever its timeline: what orders segments.
    private static String segment(String fileName) {
        return fileName.substring(8, 24);
    }

    private static Base read(Path dir) {
        try {
            var lines = Files.readAllLines(dir.resolve(REDO));
            String lsn = lines.size() > 1 && !lines.get(1).isBlank() ? lines.get(1).strip() : null;
            return new Base(Instant.ofEpochMilli(Long.parseLong(dir.getFileName().toString())), lines.getFirst().strip(),
                    lsn, dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
