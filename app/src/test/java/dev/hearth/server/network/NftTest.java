package dev.hearth.server.network;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.hearth.server.process.Commands;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Batches through libnftables change the host's real rules, and a bad batch fails with nft's own words. */
@Tag("unit")
class NftTest {
    private static final String TABLE = "hearth_nfttest_" + ProcessHandle.current().pid();

    @Test
    void aBatchChangesTheRulesAndABadOneSaysWhy() {
        assumeTrue("root".equals(System.getProperty("user.name")), "nftables needs root");
        try {
            Nft.apply("add table inet " + TABLE + "\nadd chain inet " + TABLE + " probe\n");
            String listed = Commands.run(List.of("nft", "list", "table", "inet", TABLE), Duration.ofSeconds(10)).stdout();
            assertTrue(listed.contains("chain probe"), listed);
            var bad = assertThrows(Commands.Failure.class, () -> Nft.apply("add chain inet " + TABLE + " probe { nonsense }\n"));
            assertTrue(bad.getMessage().contains("Error"), bad.getMessage());
        } finally {
            Nft.apply("add table inet " + TABLE + "\ndelete table inet " + TABLE + "\n");
        }
        var gone = Commands.run(List.of("nft", "list", "table", "inet", TABLE), Duration.ofSeconds(10));
        assertTrue(!gone.ok(), "the table is gone");
    }
}
