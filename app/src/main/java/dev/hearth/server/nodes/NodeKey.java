package dev.hearth.server.nodes;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jdbi.v3.core.Jdbi;

/**
 * The secret nodes share through the store, with which a node vouches for a request it relays: an
 * HMAC over the method, the path and query, the time and the caller it authenticated. A vouch is
 * good for {@link #WINDOW} either side of now (the nodes' clocks are assumed within that), so a
 * captured one cannot be replayed for long, nor for another request.
 */
public final class NodeKey {
    static final Duration WINDOW = Duration.ofSeconds(60);
    private final byte[] secret;

    private NodeKey(byte[] secret) {
        this.secret = secret;
    }

    /** The store's key, made (once, whichever node comes first) when there is none yet. */
    public static NodeKey of(Jdbi jdbi) {
        var fresh = new byte[32];
        new SecureRandom().nextBytes(fresh);
        String hex = jdbi.inTransaction(h -> {
            h.createUpdate("INSERT INTO node_keys (id, secret) VALUES (1, :secret) ON CONFLICT (id) DO NOTHING")
                    .bind("secret", HexFormat.of().formatHex(fresh)).execute();
            return h.createQuery("SELECT secret FROM node_keys WHERE id = 1").mapTo(String.class).one();
        });
        return new NodeKey(HexFormat.of().parseHex(hex));
    }

    /** {@code seconds:caller:mac}, what the relaying node sends for {@code caller}. */
    public String vouch(String method, String target, String caller, Instant now) {
        long seconds = now.getEpochSecond();
        return seconds + ":" + caller + ":" + mac(seconds, method, target, caller);
    }

    /** The caller a vouch names, when it is this request's, recent, and made with this key. */
    public Optional<String> verify(String vouch, String method, String target, Instant now) {
        int first = vouch.indexOf(':');
        int last = vouch.lastIndexOf(':');
        if (first < 0 || last <= first) {
            return Optional.empty();
        }
        long seconds;
        try {
            seconds = Long.parseLong(vouch.substring(0, first));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        String caller = vouch.substring(first + 1, last);
        boolean recent = Math.abs(now.getEpochSecond() - seconds) <= WINDOW.toSeconds();
        boolean signed = MessageDigest.isEqual(mac(seconds, method, target, caller).getBytes(StandardCharsets.US_ASCII),
                vouch.substring(last + 1).getBytes(StandardCharsets.US_ASCII));
        return recent && signed ? Optional.of(caller) : Optional.empty();
    }

    private String mac(long seconds, String method, String target, String caller) {
        String signed = seconds + "\n" + method + "\n" + target + "\n" + caller;
        return HexFormat.of().formatHex(hmac(signed));
    }

    /**
     * A secret for {@code subject}, the same on every node and for ever, and another for every other
     * purpose or subject (E2B's per-sandbox access tokens): base64url, 43 characters.
     */
    public String derive(String purpose, String subject) {
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(hmac("derive\n" + purpose + "\n"
                + subject));
    }

    private byte[] hmac(String text) {
        try {
            var mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
