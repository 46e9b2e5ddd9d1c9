package dev.hearth.server.limits;

import java.time.Duration;

/**
 * The bounds {@code hearth serve} holds every caller to, so that one tenant, client or script cannot take
 * the server from the others. Each has a default a normal CLI or SDK user never meets.
 *
 * @param requestsPerSecond each principal's sustained request rate (a token bucket refilled at this rate)
 * @param requestBurst      how many requests a principal may send at once before the rate applies
 * @param authFailuresPerMinute failed token requests and sign-in codes one client address may make
 * @param resendEvery       how often one invitation's mail may be sent again
 * @param reserveMb         free space the data directory keeps; below it no new work is placed (507)
 */
public record Limits(double requestsPerSecond, int requestBurst, int authFailuresPerMinute, Duration resendEvery,
                     long reserveMb) {

    public static final Limits DEFAULT = new Limits(100, 1000, 30, Duration.ofMinutes(1), 1024);

    public Limits {
        if (requestsPerSecond <= 0 || requestBurst < 1 || authFailuresPerMinute < 1) {
            throw new IllegalArgumentException("rate limits must be positive");
        }
        if (reserveMb < 0) {
            throw new IllegalArgumentException("the disk reserve cannot be negative");
        }
    }

    public Limits withRequests(double perSecond, int burst) {
        return new Limits(perSecond, burst, authFailuresPerMinute, resendEvery, reserveMb);
    }

    public Limits withAuthFailures(int perMinute) {
        return new Limits(requestsPerSecond, requestBurst, perMinute, resendEvery, reserveMb);
    }

    public Limits withReserve(long mb) {
        return new Limits(requestsPerSecond, requestBurst, authFailuresPerMinute, resendEvery, mb);
    }
}
