package dev.hearth.server.pgwire;

import java.net.InetSocketAddress;
import java.util.Optional;

/** What the proxy asks of the databases behind it. */
public interface Backends {
    /**
     * Where a connection to the database goes: its cluster's private port, woken first if it sleeps
     * (this may wait for a move to sleep to finish), or the node that runs it. Throws
     * {@link Refused} when the database cannot be reached.
     */
    InetSocketAddress wake(String databaseId) throws Refused;

    /** Where a cancel request goes, if anywhere: a cancel request never wakes anything. */
    Optional<InetSocketAddress> cancelTarget(String databaseId);

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
