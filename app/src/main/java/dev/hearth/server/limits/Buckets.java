package dev.hearth.server.limits;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/** One token bucket per key (a principal, an address, an invitation), forgotten once full again. */
final class Buckets<K> {
    // Enough keys to hold every client of a busy server; past it, buckets that refilled are dropped.
    private static final int PRUNE_ABOVE = 10_000;

    private final double capacity;
    private final double perSecond;
    private final LongSupplier nanos;
    private final Map<K, TokenBucket> buckets = new ConcurrentHashMap<>();

    Buckets(double capacity, double perSecond, LongSupplier nanos) {
        this.capacity = capacity;
        this.perSecond = perSecond;
        this.nanos = nanos;
    }

    Duration take(K key) {
        return bucket(key).take(nanos.getAsLong());
    }

    Duration peek(K key) {
        var bucket = buckets.get(key);
        return bucket == null ? Duration.ZERO : bucket.peek(nanos.getAsLong());
    }

    private TokenBucket bucket(K key) {
        if (buckets.size() > PRUNE_ABOVE) {
            long now = nanos.getAsLong();
            buckets.values().removeIf(b -> b.full(now));
        }
        return buckets.computeIfAbsent(key, k -> new TokenBucket(capacity, perSecond, nanos.getAsLong()));
    }
}
