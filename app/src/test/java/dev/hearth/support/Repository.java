package dev.hearth.support;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's checkout, found from wherever the tests run (the module or the root). */
public final class Repository {
    private Repository() {
    }

    public static Path root() {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        while (!Files.exists(dir.resolve("docs/api.md"))) {
            dir = dir.getParent();
        }
        return dir;
    }
}
