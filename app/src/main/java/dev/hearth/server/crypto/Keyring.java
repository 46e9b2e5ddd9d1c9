package dev.hearth.server.crypto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.Json;
import dev.hearth.fs.Disk;
import dev.hearth.server.store.Ids;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-256-GCM keys for secrets at rest, kept in a 0600 JSON file ({@code encryption-keys.json} in
 * the data directory unless configured). The active key seals; every listed key opens. The file is
 * re-read when it changes, so a rotation by {@code hearth admin rotate-encryption-key} reaches a
 * running server. The associated data binds each ciphertext to the row it belongs to.
 */
public final class Keyring {
    /** A sealed value: which key sealed it, and base64 of nonce || ciphertext || tag. */
    public record Sealed(String keyId, String data) {
    }

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int NONCE_BYTES = 12;

    private final Path file;
    private volatile FileTime loadedAt;
    private volatile String active;
    private volatile Map<String, SecretKeySpec> keys;

    public Keyring(Path file) {
        this.file = file;
        if (!Files.exists(file)) {
            write(file, newKeyFile());
        }
        load();
    }

    public Sealed seal(String plaintext, String associatedData) {
        reloadIfChanged();
        return new Sealed(active, seal(keys.get(active), plaintext, associatedData));
    }

    public String open(Sealed sealed, String associatedData) {
        var key = keys.get(sealed.keyId());
        if (key == null) {
            load();
            key = keys.get(sealed.keyId());
            if (key == null) {
                throw new IllegalStateException("encryption key " + sealed.keyId() + " is not in " + file);
            }
        }
        try {
            return open(key, sealed.data(), associatedData);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("a sealed value does not open with key " + sealed.keyId(), e);
        }
    }

    /** AES-256-GCM under {@code key}: base64 of a random nonce and the ciphertext with its tag. */
    public static String seal(SecretKeySpec key, String plaintext, String associatedData) {
        try {
            byte[] nonce = new byte[NONCE_BYTES];
            RANDOM.nextBytes(nonce);
            var cipher = cipher(Cipher.ENCRYPT_MODE, key, nonce, associatedData);
            byte[] sealed = cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
            var out = ByteBuffer.allocate(nonce.length + sealed.length).put(nonce).put(sealed);
            return Base64.getEncoder().encodeToString(out.array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot encrypt", e);
        }
    }

    /** What {@link #seal(SecretKeySpec, String, String)} sealed; fails when the key, data or associated data differ. */
    public static String open(SecretKeySpec key, String data, String associatedData) throws GeneralSecurityException {
        byte[] all = Base64.getDecoder().decode(data);
        if (all.length < NONCE_BYTES) {
            throw new GeneralSecurityException("too short to be sealed");
        }
        var cipher = cipher(Cipher.DECRYPT_MODE, key, Arrays.copyOf(all, NONCE_BYTES), associatedData);
        return new String(cipher.doFinal(all, NONCE_BYTES, all.length - NONCE_BYTES), StandardCharsets.UTF_8);
    }

    public String activeKeyId() {
        reloadIfChanged();
        return active;
    }

    /** Adds a new key and makes it the active one; returns its id. Older keys still open. */
    public static String rotate(Path file) {
        var doc = (ObjectNode) read(file);
        String id = Ids.next();
        ((ObjectNode) doc.path("keys")).put(id, newKey());
        doc.put("active", id);
        write(file, doc);
        return id;
    }

    /** Drops keys that are neither active nor in {@code inUse}; returns the ids dropped. */
    public static Set<String> prune(Path file, Set<String> inUse) {
        var doc = (ObjectNode) read(file);
        var keysNode = (ObjectNode) doc.path("keys");
        var dropped = new TreeSet<String>();
        keysNode.fieldNames().forEachRemaining(id -> {
            if (!id.equals(doc.path("active").asText()) && !inUse.contains(id)) {
                dropped.add(id);
            }
        });
        dropped.forEach(keysNode::remove);
        write(file, doc);
        return dropped;
    }

    private void reloadIfChanged() {
        try {
            if (!Files.getLastModifiedTime(file).equals(loadedAt)) {
                load();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private synchronized void load() {
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            var doc = read(file);
            var loaded = new LinkedHashMap<String, SecretKeySpec>();
            doc.path("keys").fields().forEachRemaining(e ->
                    loaded.put(e.getKey(), new SecretKeySpec(Base64.getDecoder().decode(e.getValue().asText()), "AES")));
            String activeId = doc.path("active").asText();
            if (!loaded.containsKey(activeId)) {
                throw new IllegalStateException(file + " names active key " + activeId + " but does not hold it");
            }
            keys = Map.copyOf(loaded);
            active = activeId;
            loadedAt = modified;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static Cipher cipher(int mode, SecretKeySpec key, byte[] nonce, String associatedData)
            throws GeneralSecurityException {
        var cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(mode, key, new GCMParameterSpec(128, nonce));
        cipher.updateAAD(associatedData.getBytes(StandardCharsets.UTF_8));
        return cipher;
    }

    private static JsonNode newKeyFile() {
        var doc = Json.mapper().createObjectNode();
        String id = Ids.next();
        doc.put("active", id);
        doc.putObject("keys").put(id, newKey());
        return doc;
    }

    private static String newKey() {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }

    private static JsonNode read(Path file) {
        try {
            return Json.mapper().readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read encryption keys " + file, e);
        }
    }

    private static void write(Path file, JsonNode doc) {
        try {
            Disk.writePrivate(file, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(doc));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write encryption keys " + file, e);
        }
    }
}
