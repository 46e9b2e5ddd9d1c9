package dev.hearth.server.store;

import java.sql.SQLException;
import org.jdbi.v3.core.Handle;

/**
 * Store-wide locks for choices that span tables or processes, held to the end of the transaction:
 * PostgreSQL's advisory locks, so that nodes sharing the store choose one at a time. SQLite needs
 * none: one process writes, one transaction at a time.
 */
public final class StoreLocks {
    /** The choice of a network slot, which computers and the warm pool draw from alike. */
    public static final long SLOTS = 0x4865_6172_7468_0001L;

    private StoreLocks() {
    }

    public static void hold(Handle h, long lock) {
        try {
            if (!h.getConnection().getMetaData().getDatabaseProductName().equals("PostgreSQL")) {
                return;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot tell the store's dialect", e);
        }
        h.createQuery("SELECT pg_advisory_xact_lock(:lock)").bind("lock", lock).mapTo(String.class).list();
    }
}
