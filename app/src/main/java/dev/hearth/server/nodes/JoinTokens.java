package dev.hearth.server.nodes;

import static dev.hearth.server.store.Times.millis;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.hearth.api.Json;
import dev.hearth.server.crypto.Keyring;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.spec.SecretKeySpec;
import org.jdbi.v3.core.Jdbi;

/**
 * Join tokens: what a new node needs from the cluster (the signing keys tokens are made with, the
 * encryption keys secrets are sealed with, the public URL that is every token's and key file's
 * audience), sealed in the store under a key that only the token holds. A token is
 * {@code hj1.ID.SECRET}: the store keeps ID and the sealed value, never SECRET; anyone with the
 * token and the store's address can join until it expires, so it is handed over like a password.
 */
public final class JoinTokens {
    private static final String PREFIX = "hj1";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** What a node joining takes: the two key files' contents and the cluster's public URL. */
    public record Shared(String signingKeys, String encryptionKeys, String publicUrl) {
    }

    private JoinTokens() {
    }

    /** Seals {@code shared} in the store for {@code lifetime}; answers the token (shown once). Expired ones go. */
    public static String issue(Jdbi jdbi, Shared shared, Duration lifetime, Instant now) {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        byte[] idBytes = new byte[8];
        RANDOM.nextBytes(idBytes);
        String id = HexFormat.of().formatHex(idBytes);
        String sealed = Keyring.seal(key(secret), json(shared), id);
        jdbi.useTransaction(h -> {
            h.createUpdate("DELETE FROM join_tokens WHERE expires_at < :now").bind("now", millis(now)).execute();
            h.createUpdate("INSERT INTO join_tokens (id, sealed, created_at, expires_at) VALUES (:id, :sealed, :now, :until)")
                    .bind("id", id).bind("sealed", sealed).bind("now", millis(now))
                    .bind("until", millis(now.plus(lifetime))).execute();
        });
        return PREFIX + "." + id + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    }

    /** What {@code token} sealed; an IllegalArgumentException saying why when it is malformed, unknown, expired or forged. */
    public static Shared redeem(Jdbi jdbi, String token, Instant now) {
        String[] parts = token.strip().split("\\.");
        if (parts.length != 3 || !parts[0].equals(PREFIX) || !parts[1].matches("[0-9a-f]{16}")) {
            throw new IllegalArgumentException("not a join token (hj1.ID.SECRET, as hearth admin nodes join-token prints it)");
        }
        byte[] secret;
        try {
            secret = Base64.getUrlDecoder().decode(parts[2]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the join token's secret is not base64url");
        }
        var row = jdbi.withHandle(h -> h.createQuery("SELECT sealed, expires_at FROM join_tokens WHERE id = :id")
                .bind("id", parts[1]).map((rs, ctx) -> new String[] {rs.getString(1), Long.toString(rs.getLong(2))})
                .findOne()).orElseThrow(() -> new IllegalArgumentException(
                        "no join token " + parts[1] + " in this store (made for another store, or expired and removed)"));
        if (Long.parseLong(row[1]) < millis(now)) {
            throw new IllegalArgumentException("join token " + parts[1] + " expired; make another with hearth admin nodes join-token");
        }
        try {
            return Json.mapper().readValue(Keyring.open(key(secret), row[0], parts[1]), Shared.class);
        } catch (GeneralSecurityException | JsonProcessingException e) {
            throw new IllegalArgumentException("join token " + parts[1] + " does not open what the store holds (its secret is wrong)");
        }
    }

    /** SHA-256 of a label and the token's secret: the AES key, never stored. */
    private static SecretKeySpec key(byte[] secret) {
        try {
            var digest = MessageDigest.getInstance("SHA-256");
            digest.update("hearth join token\0".getBytes(StandardCharsets.UTF_8));
            return new SecretKeySpec(digest.digest(secret), "AES");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String json(Shared shared) {
        try {
            return Json.mapper().writeValueAsString(shared);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
