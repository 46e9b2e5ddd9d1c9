package dev.hearth.server.sandbox.runsc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which runsc builds get the /proc/sys/net mask from the start (gVisor #10704); needs no runsc. */
class BootTest {

    @Test
    void onlyBuildsDatedBeforeTheFixNeedTheMask() {
        assertTrue(Boot.needsNetnsWorkaround("runsc version release-20240729.0\nspec: 1.1.0-rc.1\n"));
        assertFalse(Boot.needsNetnsWorkaround("runsc version release-20240807.0\nspec: 1.1.0-rc.1\n"));
        assertFalse(Boot.needsNetnsWorkaround("runsc version release-20250120.0\n"));
        assertFalse(Boot.needsNetnsWorkaround("runsc version 0.0.0-dev\n"), "an undated build is tried as it is");
    }
}
