package dev.hearth.server.variables;

import dev.hearth.server.crypto.Keyring;
import java.nio.file.Path;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;

/**
 * Rotates the key that seals variables: a new active key, every value re-sealed with it, then
 * every key no row still uses dropped. Safe while servers run: they pick up the new key file, and a
 * key a late writer still used is kept until a later rotation finds it unused.
 */
public final class KeyRotation {
    public record Result(String activeKey, int resealed, Set<String> dropped) {
    }

    private KeyRotation() {
    }

    public static Result rotate(Path keyFile, Jdbi jdbi) {
        String active = Keyring.rotate(keyFile);
        var keyring = new Keyring(keyFile);
        var store = new VariableStore();
        int resealed = 0;
        for (var batch = jdbi.withHandle(h -> store.sealedWithOtherKey(h, active, 100)); !batch.isEmpty();
             batch = jdbi.withHandle(h -> store.sealedWithOtherKey(h, active, 100))) {
            for (var v : batch) {
                var to = keyring.seal(keyring.open(v.sealed(), v.associatedData()), v.associatedData());
                if (jdbi.inTransaction(h -> store.reseal(h, v.id(), v.sealed(), to))) {
                    resealed++;
                }
            }
        }
        var dropped = Keyring.prune(keyFile, jdbi.withHandle(store::keysInUse));
        return new Result(active, resealed, dropped);
    }
}
