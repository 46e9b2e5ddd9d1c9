package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Validate;
import dev.hearth.api.databases.DatabaseHistory;
import dev.hearth.server.postgres.RecoveryTarget;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a branch at a moment is made from: a database of the same workspace, the moment (a time: the
 * state after every commit at or before it; or an LSN: after the WAL record there), and the newest
 * base made before that moment, from which the branch replays the database's archived WAL.
 */
record MomentSource(Database database, RecoveryTarget target, Bases.Base base) {

    /**
     * The source {@code from_database} names at {@code at} (a time, or an LSN), if its history reaches
     * that moment; {@code end} is where its WAL ends now (null when not known).
     */
    static MomentSource find(Database database, String at, Bases bases, DatabaseHistory window, Supplier<String> end) {
        String text = Validate.required("at", at);
        if (window.earliest() == null) {
            throw ApiException.invalidField("from_database", "database " + database.name() + " keeps no history yet "
                    + "(its first base is made within " + HistoryKeeper.ROUND.toSeconds() + " s of its creation)");
        }
        if (RecoveryTarget.Lsn.is(text)) {
            return atLsn(database, new RecoveryTarget.Lsn(text.toUpperCase(Locale.ROOT)), bases, window, end.get());
        }
        Instant moment = moment(text);
        if (moment.isAfter(window.latest())) {
            throw outside("is in the future", window);
        }
        var base = bases.before(database.id(), moment).orElseThrow(() -> outside("is before the history of "
                + database.name() + " begins", window));
        return new MomentSource(database, new RecoveryTarget.Time(moment), base);
    }

    private static MomentSource atLsn(Database database, RecoveryTarget.Lsn target, Bases bases, DatabaseHistory window,
                                      String end) {
        String first = bases.firstLsn(database.id()).orElse(null);
        if (end != null && target.bytes() > new RecoveryTarget.Lsn(end).bytes()) {
            throw outside("is past the end of its WAL", window, first, end);
        }
        var base = bases.before(database.id(), target).orElseThrow(() -> outside("is before the history of "
                + database.name() + " begins", window, first, end));
        return new MomentSource(database, target, base);
    }

    /** A branch keeps the source's version; asking for another is an error. */
    String version(String requested) {
        String kept = database.placement().version();
        if (requested != null && !requested.equals(kept)) {
            throw ApiException.invalidField("version", "a branch keeps its database's version, " + kept);
        }
        return kept;
    }

    /** The branch's disk: as asked, at least the source's (the base is a copy of its disk). */
    int diskMb(Integer requested) {
        int kept = database.settings().diskMb();
        int mb = Validate.range("disk_mb", requested, DatabaseService.MIN_DISK_MB, DatabaseService.MAX_DISK_MB, kept);
        if (mb < kept) {
            throw ApiException.invalidField("disk_mb", "a branch's disk is at least its database's, " + kept + " MB");
        }
        return mb;
    }

    private static Instant moment(String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw ApiException.invalidField("at", "must be a timestamp (RFC 3339, e.g. 2026-11-27T14:02:00Z) or an LSN "
                    + "(e.g. 0/16B3748, as pg_current_wal_lsn() shows it)");
        }
    }

    /** The same for an LSN, with the bounds in LSNs as well ({@code details.earliest_lsn}, {@code details.latest_lsn}). */
    private static ApiException outside(String problem, DatabaseHistory window, String first, String end) {
        String message = problem + ": give an LSN from " + (first == null ? "its next base's" : first) + " to "
                + (end == null ? "the end of its WAL" : end);
        var details = new LinkedHashMap<String, Object>(Map.of("fields", Map.of("at", message),
                "earliest", window.earliest().toString(), "latest", window.latest().toString()));
        details.put("earliest_lsn", first);
        details.put("latest_lsn", end);
        return new ApiException(ErrorCode.INVALID_REQUEST, "at: " + message, details);
    }

    /** 400 naming {@code at}, with the window's bounds in {@code details.earliest} and {@code details.latest}. */
    private static ApiException outside(String problem, DatabaseHistory window) {
        String message = problem + ": give a moment from " + window.earliest() + " to " + window.latest();
        return new ApiException(ErrorCode.INVALID_REQUEST, "at: " + message, Map.of("fields", Map.of("at", message),
                "earliest", window.earliest().toString(), "latest", window.latest().toString()));
    }
}
