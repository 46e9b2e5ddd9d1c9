package dev.hearth.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Json;
import dev.hearth.server.crypto.Secrets;
import dev.hearth.server.http.IdempotencyStore.Entry;
import dev.hearth.server.http.IdempotencyStore.Scope;
import dev.hearth.server.store.StoredJson;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;

/**
 * Idempotency-Key handling for mutations, scoped to (principal, method, path, key) and kept 24
 * hours. The first request claims the key in the store, so of two concurrent requests only one runs;
 * the other waits for its answer. Only successful answers are kept (with secrets redacted); a
 * failed request releases the key so a corrected retry can run.
 */
public final class Idempotency {
    public static final Duration RETENTION = Duration.ofHours(24);
    static final Duration WAIT_FOR_FIRST = Duration.ofSeconds(30);
    // A claim this old with no answer belongs to a request that died with its server.
    static final Duration ABANDONED = Duration.ofMinutes(2);

    private final Jdbi jdbi;
    private final IdempotencyStore store;
    private final Clock clock;

    public Idempotency(Jdbi jdbi, IdempotencyStore store, Clock clock) {
        this.jdbi = jdbi;
        this.store = store;
        this.clock = clock;
    }

    public Reply run(Exchange ex, String method, boolean required, Supplier<Reply> action) {
        var key = ex.header("idempotency-key");
        if (key.isEmpty()) {
            if (required) {
                throw new ApiException(ErrorCode.IDEMPOTENCY_KEY_REQUIRED,
                        "creates need an Idempotency-Key header (1 to 255 characters), e.g. a UUID");
            }
            return action.get();
        }
        if (key.get().isEmpty() || key.get().length() > 255) {
            throw ApiException.invalidField("Idempotency-Key", "must be 1 to 255 characters");
        }
        var scope = new Scope(ex.caller().id(), method, ex.path(), key.get());
        return claimOrReplay(scope, Secrets.sha256(ex.rawBody()), action);
    }

    private Reply claimOrReplay(Scope scope, String hash, Supplier<Reply> action) {
        Instant deadline = clock.instant().plus(WAIT_FOR_FIRST);
        while (true) {
            Instant now = clock.instant();
            if (jdbi.inTransaction(h -> store.claim(h, scope, hash, now, now.plus(RETENTION)))) {
                return execute(scope, action);
            }
            Entry entry = jdbi.withHandle(h -> store.find(h, scope)).orElse(null);
            if (entry == null) {
                continue;
            }
            if (stale(entry, now)) {
                jdbi.useTransaction(h -> store.release(h, scope));
                continue;
            }
            if (!entry.requestHash().equals(hash)) {
                throw new ApiException(ErrorCode.IDEMPOTENCY_KEY_REUSED,
                        "this Idempotency-Key was used with a different body; use a new key for a new request");
            }
            if (entry.status() != null) {
                return replay(entry);
            }
            if (now.isAfter(deadline)) {
                throw ApiException.conflict("a request with this Idempotency-Key is still running; retry later");
            }
            pause();
        }
    }

    private boolean stale(Entry entry, Instant now) {
        return !entry.expiresAt().isAfter(now)
                || (entry.status() == null && entry.createdAt().plus(ABANDONED).isBefore(now));
    }

    private Reply execute(Scope scope, Supplier<Reply> action) {
        Reply reply;
        try {
            reply = action.get();
        } catch (RuntimeException e) {
            jdbi.useTransaction(h -> store.release(h, scope));
            throw e;
        }
        if (reply.status() >= 200 && reply.status() < 300 && !reply.streaming()) {
            String body = StoredJson.text(reply.replayBody());
            jdbi.useTransaction(h -> store.complete(h, scope, reply.status(), body));
        } else {
            jdbi.useTransaction(h -> store.release(h, scope));
        }
        return reply;
    }

    private static Reply replay(Entry entry) {
        try {
            return Reply.status(entry.status(), Json.mapper().readTree(entry.body())).header("Idempotent-Replayed", "true");
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored idempotent response is not JSON", e);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.conflict("interrupted while waiting for the first request with this Idempotency-Key");
        }
    }

    /** Drops records past their 24 hours. */
    public int purge() {
        return jdbi.inTransaction(h -> store.purge(h, clock.instant()));
    }
}
