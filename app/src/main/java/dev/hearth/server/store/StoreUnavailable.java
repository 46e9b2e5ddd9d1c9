package dev.hearth.server.store;

import java.sql.SQLTransientException;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** The store could not take a request in time (writers queued, or the pool or the database busy): retry soon. */
public final class StoreUnavailable extends RuntimeException {
    public StoreUnavailable(String message) {
        super(message);
    }

    /** Whether {@code failure} came from a store too busy to answer, rather than from a fault. */
    public static boolean causedBy(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof StoreUnavailable || t instanceof SQLTransientException) {
                return true;
            }
            if (t instanceof SQLiteException sqlite && busy(sqlite.getResultCode())) {
                return true;
            }
        }
        return false;
    }

    /** SQLITE_BUSY and SQLITE_LOCKED, with every extended code of theirs (the low byte is the primary code). */
    private static boolean busy(SQLiteErrorCode code) {
        int primary = code.code & 0xff;
        return primary == SQLiteErrorCode.SQLITE_BUSY.code || primary == SQLiteErrorCode.SQLITE_LOCKED.code;
    }
}
