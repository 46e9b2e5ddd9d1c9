package dev.hearth.server.auth;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** Persists what sign-in needs: used assertion ids, login codes, sessions and refresh tokens. */
public final class AuthStore {
    public record LoginCode(String id, String email, String codeHash, int attempts, Instant expiresAt) {
    }

    public record Session(String id, String principal, Instant expiresAt, Instant revokedAt) {
    }

    public record RefreshToken(String tokenHash, String session, Instant usedAt) {
    }

    /** Records an assertion's jti; false when that key already used it. */
    public boolean useJti(Handle h, String keyId, String jti, Instant expiresAt) {
        return h.createUpdate("""
                INSERT INTO assertion_jtis (key_id, jti, expires_at) VALUES (:k, :j, :e)
                ON CONFLICT (key_id, jti) DO NOTHING""")
                .bind("k", keyId).bind("j", jti).bind("e", millis(expiresAt)).execute() == 1;
    }

    public void insertCode(Handle h, String id, String email, String codeHash, Instant now, Instant expiresAt) {
        h.createUpdate("""
                INSERT INTO login_codes (id, email, code_hash, attempts, created_at, expires_at)
                VALUES (:id, :email, :hash, 0, :now, :exp)""")
                .bind("id", id).bind("email", email).bind("hash", codeHash).bind("now", millis(now))
                .bind("exp", millis(expiresAt)).execute();
    }

    public long codesSince(Handle h, String email, Instant since) {
        return h.createQuery("SELECT COUNT(*) FROM login_codes WHERE email = :e AND created_at >= :s")
                .bind("e", email).bind("s", millis(since)).mapTo(Long.class).one();
    }

    /** The newest unused, unexpired code of an address. */
    public Optional<LoginCode> activeCode(Handle h, String email, Instant now) {
        return h.createQuery("""
                SELECT * FROM login_codes WHERE email = :e AND used_at IS NULL AND expires_at > :now
                ORDER BY id DESC LIMIT 1""")
                .bind("e", email).bind("now", millis(now))
                .map((rs, ctx) -> new LoginCode(rs.getString("id"), rs.getString("email"), rs.getString("code_hash"),
                        rs.getInt("attempts"), instant(rs, "expires_at"))).findOne();
    }

    public void countAttempt(Handle h, String codeId) {
        h.createUpdate("UPDATE login_codes SET attempts = attempts + 1 WHERE id = :id").bind("id", codeId).execute();
    }

    /** Marks a code used; false if a concurrent request used it first. */
    public boolean useCode(Handle h, String codeId, Instant now) {
        return h.createUpdate("UPDATE login_codes SET used_at = :now WHERE id = :id AND used_at IS NULL")
                .bind("id", codeId).bind("now", millis(now)).execute() == 1;
    }

    public void insertSession(Handle h, String id, String principal, Instant now, Instant expiresAt) {
        h.createUpdate("""
                INSERT INTO sessions (id, principal, created_at, expires_at) VALUES (:id, :p, :now, :exp)""")
                .bind("id", id).bind("p", principal).bind("now", millis(now)).bind("exp", millis(expiresAt)).execute();
    }

    public Optional<Session> session(Handle h, String id) {
        return h.createQuery("SELECT * FROM sessions WHERE id = :id").bind("id", id)
                .map((rs, ctx) -> new Session(rs.getString("id"), rs.getString("principal"),
                        instant(rs, "expires_at"), instant(rs, "revoked_at"))).findOne();
    }

    public void extendSession(Handle h, String id, Instant expiresAt) {
        h.createUpdate("UPDATE sessions SET expires_at = :exp WHERE id = :id")
                .bind("id", id).bind("exp", millis(expiresAt)).execute();
    }

    public void revokeSession(Handle h, String id, String reason, Instant now) {
        h.createUpdate("UPDATE sessions SET revoked_at = :now, revoked_reason = :r WHERE id = :id AND revoked_at IS NULL")
                .bind("id", id).bind("r", reason).bind("now", millis(now)).execute();
    }

    public void insertRefresh(Handle h, String tokenHash, String session, Instant now) {
        h.createUpdate("INSERT INTO refresh_tokens (token_hash, session, created_at) VALUES (:t, :s, :now)")
                .bind("t", tokenHash).bind("s", session).bind("now", millis(now)).execute();
    }

    public Optional<RefreshToken> refresh(Handle h, String tokenHash) {
        return h.createQuery("SELECT * FROM refresh_tokens WHERE token_hash = :t").bind("t", tokenHash)
                .map((rs, ctx) -> new RefreshToken(rs.getString("token_hash"), rs.getString("session"),
                        instant(rs, "used_at"))).findOne();
    }

    /** Marks a refresh token used; false if it was used already (a concurrent refresh won). */
    public boolean useRefresh(Handle h, String tokenHash, Instant now) {
        return h.createUpdate("UPDATE refresh_tokens SET used_at = :now WHERE token_hash = :t AND used_at IS NULL")
                .bind("t", tokenHash).bind("now", millis(now)).execute() == 1;
    }

    /** Drops rows whose only purpose has passed. */
    public void purge(Handle h, Instant now) {
        h.createUpdate("DELETE FROM assertion_jtis WHERE expires_at < :now").bind("now", millis(now)).execute();
        h.createUpdate("DELETE FROM login_codes WHERE expires_at < :now").bind("now", millis(now)).execute();
    }
}
