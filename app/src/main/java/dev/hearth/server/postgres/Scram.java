package dev.hearth.server.postgres;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * SCRAM-SHA-256 verifiers as PostgreSQL stores them, so that a password is set with
 * {@code ALTER ROLE ... PASSWORD '<verifier>'} and the plaintext never reaches PostgreSQL or its
 * logs (RFC 5802, RFC 7677; the format of {@code pg_authid.rolpassword}).
 */
public final class Scram {
    private static final int ITERATIONS = 4096;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";

    private Scram() {
    }

    /** {@code SCRAM-SHA-256$4096:<salt>$<StoredKey>:<ServerKey>} for an ASCII password. */
    public static String verifier(String password) {
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        try {
            var pbkdf2 = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256");
            byte[] salted = pbkdf2.generateSecret(new PBEKeySpec(password.toCharArray(), salt, ITERATIONS, 256)).getEncoded();
            byte[] clientKey = hmac(salted, "Client Key");
            byte[] storedKey = MessageDigest.getInstance("SHA-256").digest(clientKey);
            byte[] serverKey = hmac(salted, "Server Key");
            var b64 = Base64.getEncoder();
            return "SCRAM-SHA-256$" + ITERATIONS + ":" + b64.encodeToString(salt) + "$"
                    + b64.encodeToString(storedKey) + ":" + b64.encodeToString(serverKey);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks PBKDF2WithHmacSHA256", e);
        }
    }

    /**
     * A new random password: 32 letters and digits (about 187 bits), ASCII only so that SASLprep
     * leaves it alone, and without look-alike characters.
     */
    public static String newPassword() {
        var out = new StringBuilder(32);
        for (int i = 0; i < 32; i++) {
            out.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
        }
        return out.toString();
    }

    private static byte[] hmac(byte[] key, String message) throws GeneralSecurityException {
        var mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(message.getBytes(StandardCharsets.US_ASCII));
    }
}
