package dev.hearth.server.limits;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The rates {@link Limits} sets, held in memory (a restart forgets them): requests per principal (or
 * per address for routes anyone may call), failed sign-ins per address, and mail per invitation.
 * A refusal is 429 {@code rate_limited} with {@code Retry-After}.
 */
public final class RateLimits {
    private final Buckets<String> requests;
    private final Buckets<InetAddress> signInFailures;
    private final Buckets<String> resends;

    public RateLimits(Limits limits) {
        this(limits, System::nanoTime);
    }

    RateLimits(Limits limits, LongSupplier nanos) {
        requests = new Buckets<>(limits.requestBurst(), limits.requestsPerSecond(), nanos);
        signInFailures = new Buckets<>(limits.authFailuresPerMinute(), limits.authFailuresPerMinute() / 60.0, nanos);
        // A few at once (a typo fixed, a mail lost), then one per resendEvery.
        resends = new Buckets<>(3, 1.0 / limits.resendEvery().toSeconds(), nanos);
    }

    /** One request of a principal (or of an address, for a caller not signed in). */
    public void request(String who) {
        refuseIfWaiting(requests.take(who), "too many requests; slow down");
    }

    /**
     * A sign-in attempt from {@code address}: refused at once while the address has used up its
     * failures; a failure (a bad assertion or code) uses one.
     */
    public <T> T signIn(InetAddress address, Supplier<T> attempt) {
        refuseIfWaiting(signInFailures.peek(address), "too many failed sign-ins from this address");
        try {
            return attempt.get();
        } catch (ApiException e) {
            if (e.is(ErrorCode.INVALID_GRANT) || e.is(ErrorCode.INVALID_CODE)) {
                signInFailures.take(address);
            }
            throw e;
        }
    }

    /** Another mail of one invitation. */
    public void resend(String invitation) {
        refuseIfWaiting(resends.take(invitation), "this invitation was mailed again just now");
    }

    private static void refuseIfWaiting(Duration wait, String message) {
        if (!wait.isZero()) {
            long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
            throw new ApiException(ErrorCode.RATE_LIMITED, message + "; retry in " + seconds + " s",
                    Map.of("retry_after_seconds", seconds));
        }
    }
}
