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
 * @param diskDefaultMb     a computer's or database's disk when the request names none
 * @param diskMaxMb         the most disk one computer or database may ask for
 * @param reserveMb         free space the data directory keeps; below it no new work is placed (507)
 * @param pidsDefault       a computer's process limit when the request names none
 * @param pidsMax           the most processes one computer may ask for
 */
public record Limits(double requestsPerSecond, int requestBurst, int authFailuresPerMinute, Duration resendEvery,
                     long diskDefaultMb, long diskMaxMb, long reserveMb, int pidsDefault, int pidsMax) {

    public static final Limits DEFAULT = new Limits(100, 1000, 30, Duration.ofMinutes(1), 10_240, 102_400, 1024,
            1024, 16_384);

    public Limits {
        if (requestsPerSecond <= 0 || requestBurst < 1 || authFailuresPerMinute < 1) {
            throw new IllegalArgumentException("rate limits must be positive");
        }
        if (diskDefaultMb < 64 || diskMaxMb < diskDefaultMb || reserveMb < 0) {
            throw new IllegalArgumentException("disk: the default must be at least 64 MB and at most the maximum");
        }
        if (pidsDefault < 16 || pidsMax < pidsDefault) {
            throw new IllegalArgumentException("pids: the default must be at least 16 and at most the maximum");
        }
    }

    public Limits withRequests(double perSecond, int burst) {
        return new Limits(perSecond, burst, authFailuresPerMinute, resendEvery, diskDefaultMb, diskMaxMb, reserveMb,
                pidsDefault, pidsMax);
    }

    public Limits withAuthFailures(int perMinute) {
        return new Limits(requestsPerSecond, requestBurst, perMinute, resendEvery, diskDefaultMb, diskMaxMb, reserveMb,
                pidsDefault, pidsMax);
    }

    public Limits withDisk(long defaultMb, long maxMb, long reserve) {
        return new Limits(requestsPerSecond, requestBurst, authFailuresPerMinute, resendEvery, defaultMb, maxMb, reserve,
                pidsDefault, pidsMax);
    }

    public Limits withPids(int defaultPids, int max) {
        return new Limits(requestsPerSecond, requestBurst, authFailuresPerMinute, resendEvery, diskDefaultMb, diskMaxMb,
                reserveMb, defaultPids, max);
    }
}
