package dev.hearth.server.databases;

import dev.hearth.fs.Disk;
import dev.hearth.server.crypto.Keyring;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every node's databases share: the CA that vouches for every cluster and pooler (clients
 * check one {@code server_ca} whichever node they reach, and a node's pooler checks another node's
 * cluster with it) and the pooler's lookup password (any node's pooler logs into any node's
 * clusters). The first node to start puts its own in the store, sealed with the encryption keys
 * (which nodes share); every other node takes the store's in place of its own files.
 */
final class SharedSecrets {
    private static final Logger LOG = LoggerFactory.getLogger(SharedSecrets.class);
    static final String CA_KEY = "ca.key";
    static final String CA_CERTIFICATE = "ca.crt";
    static final String POOLER_PASSWORD = "pgbouncer-password";
    private static final List<String> FILES = List.of(CA_KEY, CA_CERTIFICATE, POOLER_PASSWORD);

    private SharedSecrets() {
    }

    /**
     * Puts this node's files in {@code dir} in the store where it has none yet, and makes them the
     * store's; answers the names of the files that changed here.
     */
    static Set<String> sync(Jdbi jdbi, Keyring keyring, Path dir) throws IOException {
        var changed = new HashSet<String>();
        for (String name : FILES) {
            Path file = dir.resolve(name);
            String mine = Files.readString(file);
            String shared = shared(jdbi, keyring, name, mine);
            if (!shared.equals(mine)) {
                Disk.writePrivate(file, shared);
                changed.add(name);
            }
        }
        if (!changed.isEmpty()) {
            LOG.info("databases: took the CA and pooler password the other nodes share ({} replaced in {})",
                    String.join(", ", changed), dir);
        }
        return changed;
    }

    private static String shared(Jdbi jdbi, Keyring keyring, String name, String mine) {
        String associated = "node-secret:" + name;
        var sealed = keyring.seal(mine, associated);
        var stored = jdbi.inTransaction(h -> {
            h.createUpdate("INSERT INTO node_secrets (name, key_id, ciphertext) VALUES (:name, :key, :data) "
                    + "ON CONFLICT (name) DO NOTHING")
                    .bind("name", name).bind("key", sealed.keyId()).bind("data", sealed.data()).execute();
            return h.createQuery("SELECT key_id, ciphertext FROM node_secrets WHERE name = :name").bind("name", name)
                    .map((rs, ctx) -> new Keyring.Sealed(rs.getString("key_id"), rs.getString("ciphertext"))).one();
        });
        return keyring.open(stored, associated);
    }
}
