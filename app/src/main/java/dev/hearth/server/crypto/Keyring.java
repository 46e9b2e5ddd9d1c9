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
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AES-256-GCM keys for secrets at rest, kept in a 0600 JSON file ({@code encryption-keys.json} in
 * the data directory unless configured). The active key seals; every listed key opens. The file is
 * re-read when it changes, so a rotation by {@code hearth admin rotate-encryption-key} reaches a
 * running server on its host; the keys it makes are also kept in the store, sealed, for the other
 * nodes ({@link #sync}). The associated data binds each ciphertext to the row it belongs to.
 */
public final class Keyring {
    /** A sealed value: which key sealed it, and base64 of nonce || ciphertext || tag. */
    public record Sealed(String keyId, String data) {
    }

    /** A key a rotation made, sealed with the key active before it ({@link #sealKey}). */
    public record SharedKey(String id, Sealed sealed) {
    }

    /** Where the keys other nodes' rotations made are kept (the store), oldest first. */
    public interface Shared {
        Shared NONE = List::of;

        List<SharedKey> keys();
    }

    private static final Logger LOG = LoggerFactory.getLogger(Keyring.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int NONCE_BYTES = 12;

    private static final Duration SYNC_EVERY = Duration.ofSeconds(5);
    private static final String KEY_PREFIX = "encryption-key:";

    private final Path file;
    private final Shared shared;
    private volatile FileTime loadedAt;
    private volatile String active;
    private volatile Map<String, SecretKeySpec> keys;
    private volatile long syncedAt;

    public Keyring(Path file) {
        this(file, Shared.NONE);
    }

    /** A keyring that also takes the keys {@code shared} holds (see {@link #sync}). */
    public Keyring(Path file, Shared shared) {
        this.file = file;
        this.shared = shared;
        if (!Files.exists(file)) {
            write(file, newKeyFile());
        }
        load();
    }

    public Sealed seal(String plaintext, String associatedData) {
        reloadIfChanged();
        if (System.nanoTime() - syncedAt > SYNC_EVERY.toNanos()) {
            try {
                sync();
            } catch (RuntimeException e) { // the store is away: seal with the key held, as before
                LOG.warn("the store's encryption keys could not be read: {}", e.toString());
            }
        }
        return new Sealed(active, seal(keys.get(active), plaintext, associatedData));
    }

    public String open(Sealed sealed, String associatedData) {
        var key = keys.get(sealed.keyId());
        if (key == null) {
            load();
            if (!keys.containsKey(sealed.keyId())) {
                sync();
            }
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

    /** The active key after taking what the store holds (a rotation on another node's host). */
    public String activeKeyIdSynced() {
        sync();
        return active;
    }

    public String activeKeyId() {
        reloadIfChanged();
        return active;
    }

    /** Key {@code id} of this keyring sealed with key {@code with}, for other nodes to take (see {@link #sync}). */
    public Sealed sealKey(String id, String with) {
        load();
        var material = Base64.getEncoder().encodeToString(keys.get(id).getEncoded());
        return new Sealed(with, seal(keys.get(with), material, KEY_PREFIX + id));
    }

    /**
     * Takes into the key file every shared key it lacks that a key it holds opens (walking the chain
     * of rotations), and makes the newest shared key the active one when it is newer than the active
     * one (ids sort by time): a rotation on another node's host reaches this node within
     * {@link #SYNC_EVERY}, or at once when it meets a value sealed with the new key.
     */
    private synchronized void sync() {
        syncedAt = System.nanoTime();
        var known = shared.keys();
        if (known.isEmpty()) {
            return;
        }
        var doc = (ObjectNode) read(file);
        var held = (ObjectNode) doc.path("keys");
        boolean changed = false;
        for (boolean progress = true; progress; ) {
            progress = false;
            for (var k : known) {
                if (!held.has(k.id()) && held.has(k.sealed().keyId())) {
                    held.put(k.id(), openKey(held, k));
                    progress = changed = true;
                }
            }
        }
        String newest = known.getLast().id();
        if (held.has(newest) && newest.compareTo(doc.path("active").asText()) > 0) {
            doc.put("active", newest);
            changed = true;
        }
        if (changed) {
            write(file, doc);
            load();
        }
    }

    private String openKey(ObjectNode held, SharedKey k) {
        var with = new SecretKeySpec(Base64.getDecoder().decode(held.path(k.sealed().keyId()).asText()), "AES");
        try {
            return open(with, k.sealed().data(), KEY_PREFIX + k.id());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("shared encryption key " + k.id() + " does not open with key "
                    + k.sealed().keyId(), e);
        }
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
