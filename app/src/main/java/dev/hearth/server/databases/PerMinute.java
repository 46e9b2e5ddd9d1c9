package dev.hearth.server.databases;

import java.time.Duration;
import java.util.ArrayDeque;

/**
 * At most so many events in any minute, for one database: wakes and restarts after a crash. The
 * caller holds the database's lock.
 */
final class PerMinute {
    private final int limit;
    private final ArrayDeque<Long> times = new ArrayDeque<>();

    PerMinute(int limit) {
        this.limit = limit;
    }

    /** Counts one more event now, unless the last minute had {@code limit} already. */
    boolean allow() {
        long now = System.nanoTime();
        while (!times.isEmpty() && now - times.peekFirst() > Duration.ofMinutes(1).toNanos()) {
            times.pollFirst();
        }
        if (times.size() >= limit) {
            return false;
        }
        times.addLast(now);
        return true;
    }
}
