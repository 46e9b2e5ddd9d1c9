package dev.hearth.server.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.server.store.Store;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A vouch is good for its own request, for a minute, from a node of this store only. */
@Tag("unit")
class NodeKeyTest {
    private static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");

    @Test
    void aVouchVerifiesForItsOwnRequestOnlyAndNotForLong(@TempDir Path one, @TempDir Path other) {
        try (var store = Store.open(null, one); var elsewhere = Store.open(null, other)) {
            var key = NodeKey.of(store.jdbi());
            String vouch = key.vouch("POST", "/v1/computers/c1/exec", "p1 key k1", NOW);

            assertEquals(Optional.of("p1 key k1"), NodeKey.of(store.jdbi()).verify(vouch, "POST",
                    "/v1/computers/c1/exec", NOW.plusSeconds(30)), "every node of the store shares the key");
            assertTrue(key.verify(vouch, "POST", "/v1/computers/c2/exec", NOW).isEmpty(), "another path");
            assertTrue(key.verify(vouch, "DELETE", "/v1/computers/c1/exec", NOW).isEmpty(), "another method");
            assertTrue(key.verify(vouch.replace("p1 key", "p2 key"), "POST", "/v1/computers/c1/exec", NOW).isEmpty(),
                    "another caller");
            assertTrue(key.verify(vouch, "POST", "/v1/computers/c1/exec", NOW.plusSeconds(61)).isEmpty(), "too old");
            assertTrue(NodeKey.of(elsewhere.jdbi()).verify(vouch, "POST", "/v1/computers/c1/exec", NOW).isEmpty(),
                    "another store's key");
            assertTrue(key.verify("garbage", "POST", "/v1/computers/c1/exec", NOW).isEmpty());
        }
    }
}
