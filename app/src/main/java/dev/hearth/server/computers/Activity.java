package dev.hearth.server.computers;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * What computers are doing, as auto-sleep and {@code last_active_at} need it: when each was last
 * used (an exec or router request began or ended, it woke), and how many router requests each is
 * serving right now. Kept in memory; {@code last_active_at} is written from it once a second,
 * since a store write per exec cost milliseconds.
 */
final class Activity {
    private final Map<String, Instant> lastUse = new ConcurrentHashMap<>();
    private final Map<String, Instant> unwritten = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> routing = new ConcurrentHashMap<>();

    /** An exec or a request began or ended. */
    void used(String computerId, Instant at) {
        lastUse.put(computerId, at);
        unwritten.put(computerId, at);
    }

    /** It woke or was restored: the idle clock starts again, though nobody used it yet. */
    void restarted(String computerId, Instant at) {
        lastUse.put(computerId, at);
    }

    /**
     * Since when the computer has not been used: its last use seen here, else the last written one
     * if it came after its sandbox started, else that start (null if it never started).
     */
    static Instant idleSince(Activity activity, Computer c) {
        var times = c.times();
        return activity.lastUse(c.id()).orElse(times.lastActiveAt() != null && times.lastStartedAt() != null
                && times.lastActiveAt().isAfter(times.lastStartedAt()) ? times.lastActiveAt() : times.lastStartedAt());
    }

    Optional<Instant> lastUse(String computerId) {
        return Optional.ofNullable(lastUse.get(computerId));
    }

    void forget(String computerId) {
        lastUse.remove(computerId);
        unwritten.remove(computerId);
        routing.remove(computerId);
    }

    void requestBegins(String computerId) {
        routing.computeIfAbsent(computerId, id -> new AtomicInteger()).incrementAndGet();
    }

    void requestEnds(String computerId) {
        var inFlight = routing.get(computerId);
        if (inFlight != null) {
            inFlight.decrementAndGet();
        }
    }

    boolean serving(String computerId) {
        var inFlight = routing.get(computerId);
        return inFlight != null && inFlight.get() > 0;
    }

    /** Hands each use not yet written to {@code write}. */
    void flush(BiConsumer<String, Instant> write) {
        for (var id : List.copyOf(unwritten.keySet())) {
            var at = unwritten.remove(id);
            if (at != null) {
                write.accept(id, at);
            }
        }
    }
}
