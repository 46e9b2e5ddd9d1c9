package dev.hearth.server.postgres;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.regex.Pattern;

/**
 * Where a recovery at start stops (with {@code recovery_target_inclusive}): after every commit at or
 * before a time, or after the WAL record at an LSN (every transaction committed at or before it).
 */
public sealed interface RecoveryTarget {
    /** The setting that names the target to PostgreSQL. */
    String setting();

    record Time(Instant at) implements RecoveryTarget {
        private static final DateTimeFormatter FORMAT =
                DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSxxx").withZone(ZoneOffset.UTC);

        @Override
        public String setting() {
            return "recovery_target_time=" + FORMAT.format(at);
        }

        @Override
        public String toString() {
            return at.toString();
        }
    }

    /** {@code lsn} in PostgreSQL's X/Y form, as {@code pg_current_wal_lsn()} shows it. */
    record Lsn(String lsn) implements RecoveryTarget {
        private static final Pattern FORM = Pattern.compile("[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}");

        public static boolean is(String text) {
            return FORM.matcher(text).matches();
        }

        /** Its position in bytes, to compare LSNs. */
        public long bytes() {
            int slash = lsn.indexOf('/');
            return (Long.parseLong(lsn.substring(0, slash), 16) << 32) + Long.parseLong(lsn.substring(slash + 1), 16);
        }

        @Override
        public String setting() {
            return "recovery_target_lsn=" + lsn;
        }

        @Override
        public String toString() {
            return "LSN " + lsn;
        }
    }
}
