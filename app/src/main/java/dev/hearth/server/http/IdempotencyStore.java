package dev.hearth.server.http;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.SqlStatement;

/** Persists idempotency records: a claim while the first request runs, then its response. */
public final class IdempotencyStore {
    /** The scope of a key: the same key on another route or from another principal is another key. */
    public record Scope(String principal, String method, String path, String key) {
    }

    /** {@code resourceId}: what the request made, noted as it made it (null until then, or for other requests). */
    public record Entry(String requestHash, Integer status, String body, Instant leaseUntil, Instant expiresAt,
                        String resourceId) {
    }

    /** Claims the key for a new request; false when a record exists already. */
    public boolean claim(Handle h, Scope s, String requestHash, Instant now, Instant leaseUntil, Instant expiresAt) {
        return bind(h.createUpdate("""
                INSERT INTO idempotency_keys
                    (principal, method, path, idem_key, request_hash, created_at, lease_until, expires_at)
                VALUES (:principal, :method, :path, :key, :hash, :now, :lease, :exp)
                ON CONFLICT (principal, method, path, idem_key) DO NOTHING"""), s)
                .bind("hash", requestHash).bind("now", millis(now)).bind("lease", millis(leaseUntil))
                .bind("exp", millis(expiresAt)).execute() == 1;
    }

    public Optional<Entry> find(Handle h, Scope s) {
        return bind(h.createQuery("""
                SELECT * FROM idempotency_keys
                WHERE principal = :principal AND method = :method AND path = :path AND idem_key = :key"""), s)
                .map((rs, ctx) -> new Entry(rs.getString("request_hash"), (Integer) rs.getObject("status"),
                        rs.getString("body"), instant(rs, "lease_until"), instant(rs, "expires_at"),
                        rs.getString("resource_id")))
                .findOne();
    }

    public void complete(Handle h, Scope s, int status, String body) {
        bind(h.createUpdate("""
                UPDATE idempotency_keys SET status = :status, body = :body
                WHERE principal = :principal AND method = :method AND path = :path AND idem_key = :key"""), s)
                .bind("status", status).bind("body", body).execute();
    }

    public void release(Handle h, Scope s) {
        bind(h.createUpdate("""
                DELETE FROM idempotency_keys
                WHERE principal = :principal AND method = :method AND path = :path AND idem_key = :key"""), s)
                .execute();
    }

    /** Notes the resource the request made (the first one, if it makes several). */
    public void noteResource(Handle h, Scope s, String resourceId) {
        bind(h.createUpdate("""
                UPDATE idempotency_keys SET resource_id = :resource
                WHERE principal = :principal AND method = :method AND path = :path AND idem_key = :key
                  AND resource_id IS NULL"""), s).bind("resource", resourceId).execute();
    }

    /** Claims again a key whose claim lapsed (its server died) unanswered; false if another got there first. */
    public boolean takeOver(Handle h, Scope s, Instant now, Instant leaseUntil) {
        return bind(h.createUpdate("""
                UPDATE idempotency_keys SET lease_until = :lease
                WHERE principal = :principal AND method = :method AND path = :path AND idem_key = :key
                  AND status IS NULL AND lease_until < :now"""), s)
                .bind("lease", millis(leaseUntil)).bind("now", millis(now)).execute() == 1;
    }

    /** Extends the claim of a request still running. */
    public void renew(Handle h, Scope s, Instant leaseUntil) {
        bind(h.createUpdate("""
                UPDATE idempotency_keys SET lease_until = :lease
                WHERE principal = :principal AND method = :method AND path = :path AND idem_key = :key
                  AND status IS NULL"""), s).bind("lease", millis(leaseUntil)).execute();
    }

    /** Frees a key whose record expired or whose claim lapsed, unless it was renewed or answered meanwhile. */
    public void releaseLapsed(Handle h, Scope s, Instant now) {
        bind(h.createUpdate("""
                DELETE FROM idempotency_keys
                WHERE principal = :principal AND method = :method AND path = :path AND idem_key = :key
                  AND (expires_at <= :now OR (status IS NULL AND lease_until < :now))"""), s)
                .bind("now", millis(now)).execute();
    }

    public int purge(Handle h, Instant now) {
        return h.createUpdate("DELETE FROM idempotency_keys WHERE expires_at < :now").bind("now", millis(now)).execute();
    }

    private static <T extends SqlStatement<T>> T bind(T statement, Scope s) {
        return statement.bind("principal", s.principal()).bind("method", s.method()).bind("path", s.path())
                .bind("key", s.key());
    }
}
