package dev.hearth.server.auth;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** Persists the console's sign-ins: a cookie's digest, whom it stands for and when it ends. */
final class ConsoleCookies {
    /** {@code credential} as {@link Authenticator#vouchable} writes it after the principal: "session ID", "apikey ID". */
    record Row(String principal, String credential, Instant expiresAt, Instant revokedAt) {
    }

    void insert(Handle h, String tokenHash, String principal, String credential, Instant now, Instant expiresAt) {
        h.createUpdate("""
                INSERT INTO console_cookies (token_hash, principal, credential, created_at, expires_at)
                VALUES (:t, :p, :c, :now, :exp)""")
                .bind("t", tokenHash).bind("p", principal).bind("c", credential).bind("now", millis(now))
                .bind("exp", millis(expiresAt)).execute();
    }

    Optional<Row> find(Handle h, String tokenHash) {
        return h.createQuery("SELECT * FROM console_cookies WHERE token_hash = :t").bind("t", tokenHash)
                .map((rs, ctx) -> new Row(rs.getString("principal"), rs.getString("credential"),
                        instant(rs, "expires_at"), instant(rs, "revoked_at"))).findOne();
    }

    void revoke(Handle h, String tokenHash, Instant now) {
        h.createUpdate("UPDATE console_cookies SET revoked_at = :now WHERE token_hash = :t AND revoked_at IS NULL")
                .bind("t", tokenHash).bind("now", millis(now)).execute();
    }

    void purge(Handle h, Instant now) {
        h.createUpdate("DELETE FROM console_cookies WHERE expires_at < :now").bind("now", millis(now)).execute();
    }
}
