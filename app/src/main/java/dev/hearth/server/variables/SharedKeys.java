package dev.hearth.server.variables;

import dev.hearth.server.crypto.Keyring.Sealed;
import dev.hearth.server.crypto.Keyring.SharedKey;
import dev.hearth.server.crypto.Keyring;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/** The keys rotations made, as the store keeps them for every node (table {@code encryption_keys}). */
public final class SharedKeys implements Keyring.Shared {
    private final Jdbi jdbi;

    public SharedKeys(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    @Override
    public List<SharedKey> keys() {
        return jdbi.withHandle(h -> h.createQuery("SELECT id, sealed_by, ciphertext FROM encryption_keys ORDER BY id")
                .map((rs, ctx) -> new SharedKey(rs.getString("id"), new Sealed(rs.getString("sealed_by"),
                        rs.getString("ciphertext")))).list());
    }

    static void put(Handle h, SharedKey key) {
        h.createUpdate("INSERT INTO encryption_keys (id, sealed_by, ciphertext) VALUES (:id, :by, :data)")
                .bind("id", key.id()).bind("by", key.sealed().keyId()).bind("data", key.sealed().data()).execute();
    }
}
