package dev.hearth.server.computers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fingerprint that lets a checkpoint copy /data without pausing the computer: it must see every change. */
@Tag("unit")
class DataFingerprintTest {

    @Test
    void aRecentChangeRefusesAFingerprintAndAnyLaterChangeShows(@TempDir Path data) throws Exception {
        Files.createDirectories(data.resolve("dir"));
        Files.writeString(data.resolve("dir/file"), "abc");
        assertTrue(DataFingerprint.ofQuiet(data).isEmpty(), "just written: not quiet");
        Thread.sleep(DataFingerprint.QUIET.toMillis() + 20);
        var quiet = DataFingerprint.ofQuiet(data);
        assertTrue(quiet.isPresent());
        assertEquals(quiet.get(), DataFingerprint.of(data), "nothing changed");

        Files.writeString(data.resolve("dir/file"), "xyz");
        assertNotEquals(quiet.get(), DataFingerprint.of(data), "same size, new bytes");
        Thread.sleep(100);
        var again = DataFingerprint.ofQuiet(data).orElseThrow();
        Files.writeString(data.resolve("new"), "");
        assertNotEquals(again, DataFingerprint.of(data), "a new file");
        Thread.sleep(100);
        again = DataFingerprint.ofQuiet(data).orElseThrow();
        Files.move(data.resolve("new"), data.resolve("dir/moved"));
        assertNotEquals(again, DataFingerprint.of(data), "a rename");
        Thread.sleep(100);
        again = DataFingerprint.ofQuiet(data).orElseThrow();
        Files.setPosixFilePermissions(data.resolve("dir/moved"), PosixFilePermissions.fromString("rw-------"));
        assertNotEquals(again, DataFingerprint.of(data), "a chmod");
    }
}
