package dev.hearth.server.http;

import java.time.Duration;

/**
 * How long a retry waits for the first request with its key before it answers 409
 * {@code idempotency_key_in_use}, and the lease a running request renews on its key (a claim whose
 * lease ran out belongs to a server that died, and is let go).
 */
public record IdempotencySettings(Duration waitForFirst, Duration lease) {
    public static final IdempotencySettings DEFAULT = new IdempotencySettings(Duration.ofSeconds(30), Duration.ofSeconds(30));
}
