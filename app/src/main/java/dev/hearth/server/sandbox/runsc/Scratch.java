package dev.hearth.server.sandbox.runsc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The scratch files of execs and terminals (process specs, pid files) in the computer's own directory. */
final class Scratch {
    private Scratch() {
    }

    static void deleteQuietly(Path p) {
        try {
            if (p != null) {
                Files.deleteIfExists(p);
            }
        } catch (IOException ignored) {
            // a leftover scratch file in the computer's own directory is removed with it
        }
    }
}
