package dev.hearth.server.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/** Timestamps are stored as epoch milliseconds (BIGINT), the one type both stores compare alike. */
public final class Times {
    private Times() {
    }

    public static Long millis(Instant t) {
        return t == null ? null : t.toEpochMilli();
    }

    public static Instant instant(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : Instant.ofEpochMilli(v);
    }
}
