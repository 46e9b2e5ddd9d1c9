package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.Patch;
import dev.hearth.api.computers.OnExpire;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;

/**
 * When a computer ends by itself, and how: at {@code expiresAt} it is deleted or put to sleep
 * ({@code onExpire}). E2B's sandbox timeout is this lease. Null {@code expiresAt}: it lives until
 * deleted.
 */
public record Lifetime(Instant expiresAt, OnExpire onExpire) {
    public static final Lifetime NONE = new Lifetime(null, OnExpire.DELETE);

    public boolean expired(Instant now) {
        return expiresAt != null && !expiresAt.isAfter(now);
    }

    /**
     * What a create or PATCH sets over {@code current}: {@code expires_at} absent keeps it, null ends
     * the lease, a timestamp in the future sets it (at most a year ahead); {@code on_expire} is
     * {@code delete} or {@code sleep}. A {@code protect}ed computer is never deleted, so its lifetime
     * may only end in a sleep.
     */
    static Lifetime parse(Patch<String> expires, String onExpire, Lifetime current, boolean protect, Instant now) {
        Instant at = expires.apply(current.expiresAt(), null, given -> instant(given, now));
        var how = current.onExpire();
        if (onExpire != null) {
            how = Arrays.stream(OnExpire.values()).filter(o -> o.wire().equals(onExpire)).findFirst()
                    .orElseThrow(() -> ApiException.invalidField("on_expire", "must be delete or sleep"));
        }
        if (protect && at != null && how == OnExpire.DELETE) {
            throw ApiException.invalidField("expires_at", "a protected computer is never deleted: give it "
                    + "\"on_expire\": \"sleep\", or unprotect it");
        }
        return new Lifetime(at, how);
    }

    private static Instant instant(String given, Instant now) {
        Instant at;
        try {
            at = Instant.parse(given);
        } catch (DateTimeParseException e) {
            throw ApiException.invalidField("expires_at", "must be a timestamp (ISO 8601, e.g. 2026-11-21T06:01:19Z) "
                    + "or null");
        }
        if (!at.isAfter(now) || at.isAfter(now.plus(MAX))) {
            throw ApiException.invalidField("expires_at", "must be a timestamp after now and within a year");
        }
        return at;
    }

    private static final Duration MAX = Duration.ofDays(366);
}
