package dev.hearth.limits;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.server.limits.Limits;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** With less free space than the reserve, nothing new is placed (507 in the envelope); reads go on. */
@HearthServerTest(config = "reserveMoreThanTheDiskHolds")
class DiskReserveTest {
    @Injected
    private HearthClient admin;

    static UnaryOperator<Config> reserveMoreThanTheDiskHolds() {
        return c -> c.withLimits(Limits.DEFAULT.withReserve(1L << 30));
    }

    @Test
    void createsAreRefusedUntilSpaceIsFreed() {
        var refused = admin.send("POST", "/workspaces", Map.of("name", "full"), TestComputers.key());
        assertError(refused, 507, "insufficient_storage");
        var details = refused.body().path("error").path("details");
        assertEquals(1L << 30, details.path("reserve_mb").asLong());
        assertTrue(details.path("free_mb").asLong() < details.path("reserve_mb").asLong(), details.toString());
        assertEquals(200, admin.send("GET", "/workspaces", null, Map.of()).status(), "reads still answer");
    }
}
