package dev.hearth.server.variables;

import dev.hearth.server.crypto.Keyring.Sealed;
import dev.hearth.server.crypto.Keyring;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Rotates the key that seals secrets at rest: a new active key, published in the store sealed
 * with the one before it (so every node sharing the store takes it, see {@link SharedKeys}), every
 * sealed value re-sealed with it (variables, databases' passwords, the secrets nodes share), then
 * every key no row still uses dropped, but the one active before. Safe while servers run: they pick
 * up the new key file or the store's, and a key a late writer still used is kept until a later
 * rotation finds it unused.
 */
public final class KeyRotation {
    public record Result(String activeKey, int resealed, Set<String> dropped) {
    }

    /** A table whose rows each hold a sealed value, bound to {@code prefix} + the row's id. */
    private record SealedColumn(String table, String id, String keyId, String data, String prefix) {
        List<Row> withOtherKey(Handle h, String active, int n) {
            return h.createQuery("SELECT " + id + " AS id, " + keyId + " AS k, " + data + " AS d FROM " + table
                            + " WHERE " + keyId + " <> :active ORDER BY " + id + " LIMIT :n")
                    .bind("active", active).bind("n", n)
                    .map((rs, ctx) -> new Row(rs.getString("id"), new Sealed(rs.getString("k"), rs.getString("d"))))
                    .list();
        }

        /** Replaces a seal if the row still has the one read; false if it changed meanwhile. */
        boolean reseal(Handle h, String rowId, Sealed from, Sealed to) {
            return h.createUpdate("UPDATE " + table + " SET " + data + " = :data, " + keyId + " = :key WHERE " + id
                            + " = :id AND " + data + " = :old AND " + keyId + " = :oldKey")
                    .bind("id", rowId).bind("data", to.data()).bind("key", to.keyId())
                    .bind("old", from.data()).bind("oldKey", from.keyId()).execute() == 1;
        }

        Set<String> keysInUse(Handle h) {
            return new TreeSet<>(h.createQuery("SELECT DISTINCT " + keyId + " FROM " + table).mapTo(String.class).list());
        }
    }

    private record Row(String id, Sealed sealed) {
    }

    private static final List<SealedColumn> SEALED = List.of(
            new SealedColumn("variables", "id", "key_id", "ciphertext", "variable:"),
            new SealedColumn("databases", "id", "password_key", "password", "database:"),
            new SealedColumn("node_secrets", "name", "key_id", "ciphertext", "node-secret:"));

    private KeyRotation() {
    }

    public static Result rotate(Path keyFile, Jdbi jdbi) {
        // Up to date with rotations made on other nodes' hosts first: the chain of keys stays one.
        String before = new Keyring(keyFile, new SharedKeys(jdbi)).activeKeyIdSynced();
        String active = Keyring.rotate(keyFile);
        var keyring = new Keyring(keyFile);
        // Published before anything is sealed with it, so that every node opens what is.
        jdbi.useHandle(h -> SharedKeys.put(h, new Keyring.SharedKey(active, keyring.sealKey(active, before))));
        int resealed = 0;
        // The key active before stays a rotation longer: another node may seal with it until it syncs.
        var inUse = new TreeSet<>(Set.of(before));
        for (var column : SEALED) {
            resealed += reseal(column, keyring, active, jdbi);
            inUse.addAll(jdbi.withHandle(column::keysInUse));
        }
        var dropped = Keyring.prune(keyFile, inUse);
        return new Result(active, resealed, dropped);
    }

    private static int reseal(SealedColumn column, Keyring keyring, String active, Jdbi jdbi) {
        int resealed = 0;
        for (var batch = jdbi.withHandle(h -> column.withOtherKey(h, active, 100)); !batch.isEmpty();
             batch = jdbi.withHandle(h -> column.withOtherKey(h, active, 100))) {
            for (var row : batch) {
                String associated = column.prefix() + row.id();
                var to = keyring.seal(keyring.open(row.sealed(), associated), associated);
                if (jdbi.inTransaction(h -> column.reseal(h, row.id(), row.sealed(), to))) {
                    resealed++;
                }
            }
        }
        return resealed;
    }
}
