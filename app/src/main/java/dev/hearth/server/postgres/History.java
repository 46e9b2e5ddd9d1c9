package dev.hearth.server.postgres;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Supplier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A cluster's history in PostgreSQL's terms: every completed WAL segment is archived (a copy into the
 * database's archive directory), and a cluster made from a base may first replay archived WAL up to
 * a moment ("recovery at start"), then promote. The target is PostgreSQL's {@code recovery_target_time}
 * with {@code recovery_target_inclusive}: the state after every commit at or before the moment.
 */
public final class History {
    /** The recovery a data directory's next start performs, written beside its files until it is done. */
    private static final String PENDING = "hearth-recovery.conf";
    // PostgreSQL 14+ stops with this when the WAL ends before any commit after the target: the state
    // wanted is then the end of the WAL, and the start is made again without a target.
    static final String ENDED_BEFORE_TARGET = "recovery ended before configured recovery target was reached";
    private static final DateTimeFormatter TARGET =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSxxx").withZone(ZoneOffset.UTC);

    private History() {
    }

    /** The settings that archive each completed segment into {@code archive} (owned by the clusters' user). */
    static List<String> archiving(Path archive) {
        String dir = quoted(archive.toString());
        // Again after a crash, a segment already archived is accepted when it is the same file.
        String command = "if [ -f " + dir + "/%f ]; then cmp -s %p " + dir + "/%f; "
                + "else cp %p " + dir + "/%f.part && mv " + dir + "/%f.part " + dir + "/%f; fi";
        return List.of("-c", "archive_mode=on", "-c", "archive_command=" + command);
    }

    /**
     * Makes the next start of {@code data} replay WAL up to {@code at} (null: to the end of what there
     * is), reading segments from {@code archive} first and then from {@code liveWal} (the source's own
     * pg_wal, which holds what is not archived yet), then promote.
     */
    public static void recoverAtStart(Path data, Path archive, Path liveWal, Instant at) throws IOException {
        var lines = new ArrayList<String>();
        lines.add("restore_command=cp " + quoted(archive.toString()) + "/%f %p 2>/dev/null || cp "
                + quoted(liveWal.toString()) + "/%f %p");
        if (at != null) {
            lines.add("recovery_target_time=" + TARGET.format(at));
        }
        Files.write(data.resolve(PENDING), lines);
        Files.writeString(data.resolve("recovery.signal"), "");
    }

    static boolean pending(Path data) {
        return Files.exists(data.resolve(PENDING));
    }

    /**
     * The settings of a pending recovery. To a moment, replay pauses there ({@code hot_standby=on} so that
     * Hearth can see it, while only Hearth may log in) and {@link #promoteAtTarget} promotes it: a fast
     * promotion, without the end-of-recovery checkpoint that {@code recovery_target_action=promote}
     * waits for (half a second or more on loop-mounted disks). To the end of the WAL, the promotion is
     * PostgreSQL's own and connections wait for it ({@code hot_standby=off}).
     */
    static List<String> recovering(Path data) throws IOException {
        var args = new ArrayList<String>();
        var lines = Files.readAllLines(data.resolve(PENDING));
        for (String line : lines) {
            args.add("-c");
            args.add(line);
        }
        boolean toMoment = targeted(lines);
        args.addAll(List.of("-c", "recovery_target_inclusive=on", "-c", "recovery_target_timeline=latest",
                "-c", "recovery_target_action=" + (toMoment ? "pause" : "promote"), "-c", "hot_standby=" + toMoment));
        if (toMoment) {
            // A hot standby needs at least the settings the WAL recorded; initdb's default is the highest seen.
            args.addAll(List.of("-c", "max_worker_processes=8"));
        }
        return args;
    }

    static boolean targeted(Path data) throws IOException {
        return targeted(Files.readAllLines(data.resolve(PENDING)));
    }

    private static boolean targeted(List<String> lines) {
        return lines.stream().anyMatch(l -> l.startsWith("recovery_target_time="));
    }

    /**
     * Waits until replay pauses at the moment, then promotes; an IOException with the log's end if the
     * postmaster exits meanwhile (such as with {@link #ENDED_BEFORE_TARGET}).
     */
    static void promoteAtTarget(Cluster cluster, Duration limit, Supplier<String> log) throws IOException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (!cluster.process().isAlive()) {
                throw new IOException("postgres exited in recovery: " + log.get());
            }
            try {
                if (PrivateSessions.with(cluster, Duration.ofSeconds(30), History::promotedIfPaused)) {
                    return;
                }
            } catch (IllegalStateException exitingOrNotYet) {
                // a session refused while it starts or stops: the loop looks again
            }
            sleep();
        }
        throw new IOException("recovery did not reach its moment within " + limit.toSeconds() + " s: " + log.get());
    }

    private static boolean promotedIfPaused(Connection session) throws SQLException {
        try (var statement = session.createStatement();
             var rows = statement.executeQuery("SELECT pg_is_in_recovery(), pg_get_wal_replay_pause_state()")) {
            rows.next();
            if (!rows.getBoolean(1)) {
                return true;
            }
            if (!"paused".equals(rows.getString(2))) {
                return false;
            }
        }
        try (var statement = session.createStatement();
             var rows = statement.executeQuery("SELECT pg_promote(true, 60)")) {
            rows.next();
            return rows.getBoolean(1);
        }
    }

    private static void sleep() throws IOException {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while recovering", e);
        }
    }

    /** After {@link #ENDED_BEFORE_TARGET}: the next start recovers to the end of the WAL. */
    static void toEnd(Path data) throws IOException {
        var lines = Files.readAllLines(data.resolve(PENDING)).stream()
                .filter(l -> !l.startsWith("recovery_target_time=")).toList();
        Files.write(data.resolve(PENDING), lines);
        Files.writeString(data.resolve("recovery.signal"), "");
    }

    static void done(Path data) throws IOException {
        Files.deleteIfExists(data.resolve(PENDING));
    }

    /** The WAL file a recovery from this stopped data directory starts reading ({@code pg_controldata}'s REDO WAL file). */
    static Optional<String> redoFile(String controlData) {
        return controlData.lines().filter(l -> l.startsWith("Latest checkpoint's REDO WAL file:"))
                .map(l -> l.substring(l.indexOf(':') + 1).strip()).findFirst();
    }

    private static String quoted(String path) {
        return "'" + path.replace("'", "'\\''") + "'";
    }
}
