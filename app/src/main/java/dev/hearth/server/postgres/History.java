package dev.hearth.server.postgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A cluster's history in PostgreSQL's terms: every completed WAL segment is archived (a copy into the
 * database's archive directory), and a cluster made from a base may first replay archived WAL up to
 * a moment ("recovery at start"), then promote. The target is PostgreSQL's {@code recovery_target_time}
 * or {@code recovery_target_lsn} with {@code recovery_target_inclusive} (see {@link RecoveryTarget}).
 */
public final class History {
    /** The recovery a data directory's next start performs, written beside its files until it is done. */
    private static final String PENDING = "hearth-recovery.conf";
    // PostgreSQL 14+ stops with this when the WAL ends before any commit after the target: the state
    // wanted is then the end of the WAL, and the start is made again without a target.
    static final String ENDED_BEFORE_TARGET = "recovery ended before configured recovery target was reached";

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
     * Makes the next start of {@code data} replay WAL up to {@code target} (null: to the end of what
     * there is), reading segments from {@code archive} first and then from {@code liveWal} (the
     * source's own pg_wal, which holds what is not archived yet), then promote.
     */
    public static void recoverAtStart(Path data, Path archive, Path liveWal, RecoveryTarget target) throws IOException {
        var lines = new ArrayList<String>();
        lines.add("restore_command=cp " + quoted(archive.toString()) + "/%f %p 2>/dev/null || cp "
                + quoted(liveWal.toString()) + "/%f %p");
        if (target != null) {
            lines.add(target.setting());
        }
        Files.write(data.resolve(PENDING), lines);
        Files.writeString(data.resolve("recovery.signal"), "");
    }

    static boolean pending(Path data) {
        return Files.exists(data.resolve(PENDING));
    }

    /**
     * The settings of a pending recovery. Connections wait for the promotion ({@code hot_standby=off}), so
     * the start is ready only once the moment is reached and the cluster writes again.
     */
    static List<String> recovering(Path data) throws IOException {
        var args = new ArrayList<String>();
        for (String line : Files.readAllLines(data.resolve(PENDING))) {
            args.add("-c");
            args.add(line);
        }
        args.addAll(List.of("-c", "recovery_target_inclusive=on", "-c", "recovery_target_action=promote",
                "-c", "recovery_target_timeline=latest", "-c", "hot_standby=off"));
        return args;
    }

    /** After {@link #ENDED_BEFORE_TARGET}: the next start recovers to the end of the WAL. */
    static void toEnd(Path data) throws IOException {
        var lines = Files.readAllLines(data.resolve(PENDING)).stream()
                .filter(l -> !l.startsWith("recovery_target_")).toList();
        Files.write(data.resolve(PENDING), lines);
        Files.writeString(data.resolve("recovery.signal"), "");
    }

    static void done(Path data) throws IOException {
        Files.deleteIfExists(data.resolve(PENDING));
    }

    /** Where a recovery from this stopped data directory starts ({@code pg_controldata}'s REDO location), X/Y. */
    static Optional<String> redoLsn(String controlData) {
        return controlData.lines().filter(l -> l.startsWith("Latest checkpoint's REDO location:"))
                .map(l -> l.substring(l.indexOf(':') + 1).strip()).findFirst();
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
