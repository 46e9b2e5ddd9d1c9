package dev.hearth.server.limits;

import java.time.Duration;

/** A bucket of {@code capacity} tokens refilled at {@code perSecond}; each allowed event takes one. */
final class TokenBucket {
    private final double capacity;
    private final double perSecond;
    private double tokens;
    private long updatedNanos;

    TokenBucket(double capacity, double perSecond, long nowNanos) {
        this.capacity = capacity;
        this.perSecond = perSecond;
        this.tokens = capacity;
        this.updatedNanos = nowNanos;
    }

    /** Takes a token if there is one; otherwise answers how long until there will be. */
    synchronized Duration take(long nowNanos) {
        refill(nowNanos);
        if (tokens >= 1) {
            tokens -= 1;
            return Duration.ZERO;
        }
        return waitFor(1 - tokens);
    }

    /** How long until a token is there, taking none (zero if one is there now). */
    synchronized Duration peek(long nowNanos) {
        refill(nowNanos);
        return tokens >= 1 ? Duration.ZERO : waitFor(1 - tokens);
    }

    /** Full again: nothing to remember about whoever used it. */
    synchronized boolean full(long nowNanos) {
        refill(nowNanos);
        return tokens >= capacity;
    }

    private void refill(long nowNanos) {
        tokens = Math.min(capacity, tokens + (nowNanos - updatedNanos) / 1e9 * perSecond);
        updatedNanos = nowNanos;
    }

    private Duration waitFor(double missing) {
        return Duration.ofNanos((long) Math.ceil(missing / perSecond * 1e9));
    }
}
