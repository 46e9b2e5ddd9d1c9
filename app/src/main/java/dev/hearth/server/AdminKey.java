package dev.hearth.server;

import dev.hearth.api.Json;
import dev.hearth.api.access.KeyFile;
import dev.hearth.fs.Disk;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The first start's admin key file, {@code admin-key.json} in the data directory (0600). */
final class AdminKey {
    private static final Logger LOG = LoggerFactory.getLogger(HearthServer.class);

    private AdminKey() {
    }

    /** Writes the key file made for an empty store, if one was; answers where. */
    static Optional<Path> write(Path dataDir, Optional<KeyFile> keyFile) throws IOException {
        if (keyFile.isEmpty()) {
            return Optional.empty();
        }
        Path file = dataDir.resolve("admin-key.json");
        Disk.writePrivate(file, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(keyFile.get()));
        LOG.info("empty store: created the admin principal; its key file is {} (use HEARTH_KEY_FILE={})", file, file);
        return Optional.of(file);
    }
}
