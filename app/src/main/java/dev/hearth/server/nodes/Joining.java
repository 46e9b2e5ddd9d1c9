package dev.hearth.server.nodes;

import dev.hearth.fs.Disk;
import dev.hearth.server.store.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Both ends of joining a node by token. The first node's operator makes a token from its data
 * directory ({@link #tokenFor}); the new node, started with it, takes the cluster's keys into its
 * own data directory and the cluster's public URL ({@link #join}), so tokens, key files and secrets
 * made on any node open on it, and no file is copied by hand.
 */
public final class Joining {
    private static final Logger LOG = LoggerFactory.getLogger(Joining.class);
    static final String SIGNING_KEYS = "signing-keys.json";

    private Joining() {
    }

    /**
     * A token for {@code lifetime}, with what the node of {@code dataDir} holds (its encryption keys
     * at {@code encryptionKeys}); {@code publicUrl}, else the one that node registered.
     */
    public static String tokenFor(String store, Path dataDir, Path encryptionKeys, Optional<String> publicUrl,
                                  Duration lifetime) throws IOException {
        requireShared(store);
        for (Path file : new Path[] {dataDir.resolve(SIGNING_KEYS), encryptionKeys}) {
            if (!Files.exists(file)) {
                throw new IllegalArgumentException(file + " is missing: make the token on a node's host, from its --data-dir");
            }
        }
        try (var opened = Store.open(store, dataDir)) {
            String url = publicUrl.isPresent() ? publicUrl.get() : opened.jdbi().withHandle(h ->
                    new NodeStore().publicUrl(h, NodeLease.nodeOf(dataDir))).orElseThrow(() ->
                    new IllegalArgumentException("the node of " + dataDir + " has not registered its public URL yet: start it"
                            + " once with this version, or give --public-url"));
            var shared = new JoinTokens.Shared(Files.readString(dataDir.resolve(SIGNING_KEYS)),
                    Files.readString(encryptionKeys), url);
            return JoinTokens.issue(opened.jdbi(), shared, lifetime, Instant.now());
        }
    }

    /**
     * Takes what {@code token} carries into the new node's data directory (the encryption keys at
     * {@code encryptionKeys}; refused when either holds other keys already) and answers the public URL
     * the node is to use: {@code given} if any (a warning when it is not the cluster's), else the cluster's.
     */
    public static String join(String store, Path dataDir, Path encryptionKeys, Optional<String> given, String token)
            throws IOException {
        requireShared(store);
        Files.createDirectories(dataDir);
        Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwx------"));
        JoinTokens.Shared shared;
        try (var opened = Store.open(store, dataDir)) {
            shared = JoinTokens.redeem(opened.jdbi(), token, Instant.now());
        }
        take(dataDir.resolve(SIGNING_KEYS), shared.signingKeys());
        take(encryptionKeys, shared.encryptionKeys());
        if (given.isPresent() && !given.get().equals(shared.publicUrl())) {
            LOG.warn("--public-url {} differs from the cluster's {}: tokens and key files made for the cluster's will"
                    + " be refused here", given.get(), shared.publicUrl());
            return given.get();
        }
        LOG.info("joined the cluster with a token: its keys are in {}; public URL {}", dataDir, shared.publicUrl());
        return shared.publicUrl();
    }

    private static void take(Path file, String content) throws IOException {
        if (Files.exists(file)) {
            if (!Files.readString(file).equals(content)) {
                throw new IllegalArgumentException(file + " holds keys of its own: a node joins with an empty data"
                        + " directory (or one that joined this cluster before)");
            }
            return;
        }
        Disk.writePrivate(file, content);
    }

    private static void requireShared(String store) {
        if (!Store.shared(store)) {
            throw new IllegalArgumentException("nodes join a cluster through a shared store: give --store postgresql://...");
        }
    }
}
