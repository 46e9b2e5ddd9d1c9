package dev.hearth.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.JsonTrees;
import dev.hearth.fs.Disk;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Access tokens of key files, kept between runs of the CLI in {@code {config_dir}/tokens.json}
 * (mode 0600), so that a command costs one request instead of an assertion signed and traded first.
 * An entry is found only by a digest of the key file's token URL, subject, key id and private key:
 * never a token for another server or another key. Tokens are used until a minute before they expire.
 * A cache that cannot be read or written is ignored: it only saves time.
 */
public final class TokenCache {
    private static final long MARGIN_SECONDS = 60;

    private final Path file;

    public TokenCache(Path file) {
        this.file = file;
    }

    /** A kept token and when it expires. */
    record Entry(String accessToken, Instant expiresAt) {
    }

    /** A token for {@code key} that lives at least another minute. */
    Optional<Entry> get(String key) {
        JsonNode entry = read().path(key);
        Instant expires = expiry(entry);
        return expires.isAfter(Instant.now().plusSeconds(MARGIN_SECONDS)) && entry.path("access_token").isTextual()
                ? Optional.of(new Entry(entry.path("access_token").asText(), expires)) : Optional.empty();
    }

    private static Instant expiry(JsonNode entry) {
        try {
            return Instant.parse(entry.path("expires_at").asText(Instant.EPOCH.toString()));
        } catch (RuntimeException damaged) {
            return Instant.EPOCH;
        }
    }

    synchronized void put(String key, String token, Instant expiresAt) {
        var all = read();
        all.properties().removeIf(e -> expiry(e.getValue()).isBefore(Instant.now()));
        var entry = all.putObject(key);
        entry.put("access_token", token);
        entry.put("expires_at", expiresAt.toString());
        write(all);
    }

    synchronized void remove(String key) {
        var all = read();
        if (all.remove(key) != null) {
            write(all);
        }
    }

    /** The entry's name for a key file: a digest, so that the file names no server or key. */
    static String keyOf(JsonNode keyFile) {
        try {
            var digest = MessageDigest.getInstance("SHA-256");
            for (String field : new String[] {"token_url", "subject", "key_id", "private_key"}) {
                digest.update(keyFile.path(field).asText().getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private ObjectNode read() {
        try {
            if (Files.exists(file)) {
                return (ObjectNode) JsonTrees.read(Files.readAllBytes(file));
            }
        } catch (IOException | ClassCastException | IllegalArgumentException e) {
            // a damaged cache is as good as none
        }
        return JsonTrees.object();
    }

    private void write(ObjectNode all) {
        try {
            Files.createDirectories(file.getParent());
            Disk.writePrivate(file, JsonTrees.text(all));
        } catch (IOException e) {
            // the next run asks the server again
        }
    }
}
