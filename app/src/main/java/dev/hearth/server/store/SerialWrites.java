package dev.hearth.server.store;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.transaction.DelegatingTransactionHandler;
import org.jdbi.v3.core.transaction.TransactionHandler;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

/**
 * SQLite's write transactions, one at a time, queued in Java. SQLite lets one writer in and has the others
 * wait in its busy handler, inside a native call: a virtual thread there pins its carrier, and with as many
 * waiters as carriers the writer holding the lock could not be scheduled to commit (the store stalled for
 * the whole 30 s busy timeout under 16 clients). Here a waiter parks and frees its carrier, and waiters are
 * served in order. A transaction waits at most {@code patience}, then {@link StoreUnavailable}.
 */
final class SerialWrites extends DelegatingTransactionHandler {
    private final ReentrantLock lock;
    private final Duration patience;

    SerialWrites(TransactionHandler delegate, Duration patience) {
        this(delegate, new ReentrantLock(true), patience);
    }

    private SerialWrites(TransactionHandler delegate, ReentrantLock lock, Duration patience) {
        super(delegate);
        this.lock = lock;
        this.patience = patience;
    }

    @Override
    public TransactionHandler specialize(Handle handle) throws SQLException {
        return new SerialWrites(getDelegate().specialize(handle), lock, patience);
    }

    @Override
    public <R, X extends Exception> R inTransaction(Handle handle, HandleCallback<R, X> callback) throws X {
        acquire();
        try {
            return super.inTransaction(handle, callback);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public <R, X extends Exception> R inTransaction(Handle handle, TransactionIsolationLevel level,
                                                    HandleCallback<R, X> callback) throws X {
        acquire();
        try {
            return super.inTransaction(handle, level, callback);
        } finally {
            lock.unlock();
        }
    }

    private void acquire() {
        try {
            if (!lock.tryLock(patience.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new StoreUnavailable("the store's writers are queued past " + patience.toSeconds() + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailable("interrupted waiting for the store");
        }
    }
}
