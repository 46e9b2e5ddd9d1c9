package dev.hearth.server.store;

import java.sql.SQLException;
import java.util.function.Supplier;
import org.jdbi.v3.core.JdbiException;

/** Tells a unique-constraint violation apart from other store failures, in either dialect. */
public final class Constraints {
    private static final int SQLITE_CONSTRAINT = 19;

    private Constraints() {
    }

    /** Runs a store write; a unique-constraint violation (a racing twin won) becomes {@code taken}'s conflict. */
    public static <T> T unique(Supplier<T> write, Supplier<? extends RuntimeException> taken) {
        try {
            return write.get();
        } catch (JdbiException e) {
            if (isUniqueViolation(e)) {
                throw taken.get();
            }
            throw e;
        }
    }

    public static boolean isUniqueViolation(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                // PostgreSQL: SQLSTATE 23505; SQLite: primary result code SQLITE_CONSTRAINT.
                if ("23505".equals(sql.getSQLState()) || (sql.getErrorCode() & 0xff) == SQLITE_CONSTRAINT) {
                    return true;
                }
            }
        }
        return false;
    }
}
