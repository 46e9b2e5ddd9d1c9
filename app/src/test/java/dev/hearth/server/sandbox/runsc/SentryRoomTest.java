package dev.hearth.server.sandbox.runsc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SentryRoomTest {
    @Test
    void theHostAllowsAQuarterAndAFixedPartMoreAndTheComputersSizeIsReadBack() {
        assertEquals((64L + 16 + 256) << 20, SentryRoom.hostLimit(64L << 20));
        for (long mb : new long[] {64, 100, 512, 1000, 65536}) {
            assertEquals(mb << 20, SentryRoom.guestOf(SentryRoom.hostLimit(mb << 20)), mb + " MiB");
        }
    }

    @Test
    void aLimitNeverRaisedIsTheComputersOwn() {
        assertEquals(512L << 20, SentryRoom.guestOf(512L << 20), "a sandbox started before the rule");
        assertEquals(64L << 20, SentryRoom.guestOf(64L << 20));
    }
}
