package dev.hearth.server.databases;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

/**
 * The databases this node's start has not made ready yet. Their ports listen from before the
 * reconcile (see {@link DatabaseHost#listenEarly}), so that a client, the pooler or another node
 * waits here for its database rather than being refused while earlier clusters are stopped.
 */
final class Reconciling {
    private static final Duration LIMIT = Duration.ofMinutes(2);
    private final Set<String> pending = new HashSet<>();

    synchronized void add(String id) {
        pending.add(id);
    }

    synchronized void done(String id) {
        pending.remove(id);
        notifyAll();
    }

    synchronized void allDone() {
        pending.clear();
        notifyAll();
    }

    /** Waits (at most two minutes) until the database is reconciled; at once if it is not pending. */
    synchronized void await(String id) throws InterruptedException {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        for (long left = LIMIT.toMillis(); pending.contains(id) && left > 0;
             left = (deadline - System.nanoTime()) / 1_000_000) {
            wait(left);
        }
    }
}
