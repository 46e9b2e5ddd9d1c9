package dev.hearth.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Json;
import dev.hearth.server.crypto.Secrets;
import dev.hearth.server.http.IdempotencyStore.Entry;
import dev.hearth.server.http.IdempotencyStore.Scope;
import dev.hearth.server.store.KeyedCreates;
import dev.hearth.server.store.StoredJson;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;

/**
 * Idempotency-Key handling for mutations, as Stripe documents it: scoped to (principal, method, path
 * with its query, key) and kept 24 hours. The first request claims the key and holds it until it
 * finishes, however long it runs (its lease is renewed as it works; only the claim of a server that
 * died lapses). A retry meanwhile waits for the answer, up to {@link IdempotencySettings#waitForFirst}, then answers
 * 409 {@code idempotency_key_in_use}. Answers are kept and replayed when they are final: 2xx, and 4xx
 * but conflicts (409) and rate limits (429), which a retry may get past. A 5xx, a stream, or a request
 * the server did not finish frees the key, so nothing that did not happen is ever replayed.
 */
public final class Idempotency {
    public static final Duration RETENTION = Duration.ofHours(24);

    private final Jdbi jdbi;
    private final IdempotencyStore store;
    private final Clock clock;
    private final Duration waitForFirst;
    private final Duration lease;

    public Idempotency(Jdbi jdbi, IdempotencyStore store, Clock clock, IdempotencySettings settings) {
        this.jdbi = jdbi;
        this.store = store;
        this.clock = clock;
        this.waitForFirst = settings.waitForFirst();
        this.lease = settings.lease();
    }

    public Reply run(Exchange ex, String method, boolean required, Supplier<Reply> action) {
        return run(ex, method, required, action, null);
    }

    /**
     * {@code recall}, for creates: answers for the resource a first attempt made (by id) when its
     * server died before answering; null where a retry simply runs again.
     */
    public Reply run(Exchange ex, String method, boolean required, Supplier<Reply> action,
                     Function<String, Reply> recall) {
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
        var scope = new Scope(ex.caller().id(), method, target(ex), key.get());
        return claimOrReplay(scope, Secrets.sha256(ex.rawBody()), ex.requestId(), action, recall);
    }

    /** The path and its query: {@code ?workspace=a} and {@code ?workspace=b} are different requests. */
    private static String target(Exchange ex) {
        if (ex.queryParams().isEmpty()) {
            return ex.path();
        }
        return ex.path() + "?" + ex.queryParams().entrySet().stream()
                .flatMap(e -> e.getValue().stream().map(v -> e.getKey() + "=" + v))
                .collect(Collectors.joining("&"));
    }

    private Reply claimOrReplay(Scope scope, String hash, String requestId, Supplier<Reply> action,
                               Function<String, Reply> recall) {
        Instant deadline = clock.instant().plus(waitForFirst);
        while (true) {
            Instant now = clock.instant();
            if (jdbi.inTransaction(h -> store.claim(h, scope, hash, now, now.plus(lease), now.plus(RETENTION)))) {
                return execute(scope, requestId, action);
            }
            Entry entry = jdbi.withHandle(h -> store.find(h, scope)).orElse(null);
            if (entry == null) {
                pause();
                continue;
            }
            boolean lapsed = entry.status() == null && entry.leaseUntil().isBefore(now);
            if (lapsed && entry.expiresAt().isAfter(now) && entry.resourceId() != null && recall != null) {
                // Claimed by a server that died after it made the resource: answer what it made.
                if (!entry.requestHash().equals(hash)) {
                    throw reused();
                }
                if (jdbi.inTransaction(h -> store.takeOver(h, scope, now, now.plus(lease)))) {
                    var recalled = recalled(scope, requestId, () -> recall.apply(entry.resourceId()));
                    if (recalled.isPresent()) {
                        return recalled.get();
                    }
                }
                continue;
            }
            if (!entry.expiresAt().isAfter(now) || lapsed) {
                // Expired, or claimed by a server that died before it answered: nothing to replay.
                jdbi.useTransaction(h -> store.releaseLapsed(h, scope, now));
                continue;
            }
            if (!entry.requestHash().equals(hash)) {
                throw reused();
            }
            if (entry.status() != null) {
                return replay(entry, requestId);
            }
            if (now.isAfter(deadline)) {
                throw new ApiException(ErrorCode.IDEMPOTENCY_KEY_IN_USE, "the first request with this "
                        + "Idempotency-Key is still running; retry later for its answer",
                        Map.of(ErrorEnvelope.RETRY_AFTER, Math.max(1, waitForFirst.toSeconds() / 6)));
            }
            pause();
        }
    }

    private static ApiException reused() {
        return new ApiException(ErrorCode.IDEMPOTENCY_KEY_REUSED,
                "this Idempotency-Key was used with a different body; use a new key for a new request");
    }

    /**
     * The answer for what a first attempt made, kept as its answer; empty (the key freed) when that
     * resource is gone since, so that the retry runs afresh.
     */
    private Optional<Reply> recalled(Scope scope, String requestId, Supplier<Reply> recall) {
        try {
            return Optional.of(execute(scope, requestId, recall));
        } catch (ApiException e) {
            if (!e.is(ErrorCode.NOT_FOUND)) {
                throw e;
            }
            jdbi.useTransaction(h -> store.release(h, scope));
            return Optional.empty();
        }
    }

    private Reply execute(Scope scope, String requestId, Supplier<Reply> action) {
        var lease = Thread.ofVirtual().name("idempotency-lease").start(() -> renew(scope));
        try {
            Reply reply = KeyedCreates.noting((h, id) -> store.noteResource(h, scope, id), action);
            if (reply.status() >= 200 && reply.status() < 300 && !reply.streaming()) {
                keep(scope, reply.status(), StoredJson.text(reply.replayBody()));
            } else {
                jdbi.useTransaction(h -> store.release(h, scope));
            }
            return reply;
        } catch (ApiException e) {
            if (isFinal(e)) {
                keep(scope, e.status(), StoredJson.text(ErrorEnvelope.of(e, requestId)));
            } else {
                jdbi.useTransaction(h -> store.release(h, scope));
            }
            throw e;
        } catch (RuntimeException | Error e) {
            jdbi.useTransaction(h -> store.release(h, scope));
            throw e;
        } finally {
            lease.interrupt();
        }
    }

    /** 421 is not: the request is relayed to its node, which answers it under the same key. */
    private static boolean isFinal(ApiException e) {
        return e.status() >= 400 && e.status() < 500 && e.status() != 409 && e.status() != 429
                && !e.is(ErrorCode.WRONG_NODE);
    }

    private void keep(Scope scope, int status, String body) {
        jdbi.useTransaction(h -> store.complete(h, scope, status, body));
    }

    /** Holds the claim while the request runs: a third of the lease between renewals. */
    private void renew(Scope scope) {
        try {
            while (true) {
                Thread.sleep(lease.dividedBy(3));
                Instant until = clock.instant().plus(lease);
                jdbi.useTransaction(h -> store.renew(h, scope, until));
            }
        } catch (InterruptedException done) {
            // the request finished
        }
    }

    private static Reply replay(Entry entry, String requestId) {
        try {
            var body = Json.mapper().readTree(entry.body());
            if (body.path("error") instanceof ObjectNode error) {
                // The envelope's request id is the one of the response it is in.
                error.put("request_id", requestId);
            }
            return Reply.status(entry.status(), body).header("Idempotent-Replayed", "true");
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
