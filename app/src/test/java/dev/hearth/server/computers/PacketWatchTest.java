package dev.hearth.server.computers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The packet watch's reading of a {@code /proc/net/dev} line, as the kernel writes it. */
class PacketWatchTest {
    @Test
    void theTransmitPacketsAreTheTenthNumberAfterTheColon() {
        String line = " hv412: 3273153437 1116646    0    0    0     0          0         0  987654 4321    0    0    0     0"
                + "       0          0";
        assertEquals(4321, PacketWatch.field(line, line.indexOf(':') + 1, 9));
        assertEquals(3273153437L, PacketWatch.field(line, line.indexOf(':') + 1, 0));
        assertEquals(-1, PacketWatch.field(" hv1: 1 2 3", 5, 9), "a short line has no such field");
    }
}
