package dev.hearth.server.pgwire;

import java.util.OptionalInt;

/** What the proxy asks of the databases behind it. */
public interface Backends {
    /**
     * The private port of a database's cluster, waking it first if it sleeps (this may wait for a
     * move to sleep to finish). Throws {@link Refused} when the database cannot be reached.
     */
    int wake(String databaseId) throws Refused;

    /** The private port if the database is awake: a cancel request never wakes anything. */
    OptionalInt awakePort(String databaseId);

    /** A client connection opened (it keeps the database awake) or closed. */
    void opened(String databaseId);

    void closed(String databaseId);

    /** Why a connection is refused; the client sees the message in a PostgreSQL error. */
    final class Refused extends Exception {
        private final String sqlState;

        public Refused(String sqlState, String message) {
            super(message, null, false, false);
            this.sqlState = sqlState;
        }

        public String sqlState() {
            return sqlState;
        }
    }
}
