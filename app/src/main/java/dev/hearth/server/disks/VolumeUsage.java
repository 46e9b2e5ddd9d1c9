package dev.hearth.server.disks;

import dev.hearth.server.process.Commands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The space a volume's file system has given out ({@code used}) beside the blocks its files hold, each
 * file counted whole as if it shared none ({@code allocated}, what {@code du} sums): the difference is
 * what copies that share blocks save. Only for a volume of its own (a mount), whose use is its files'.
 */
public record VolumeUsage(long usedBytes, long allocatedBytes) {
    private static final Duration QUICK = Duration.ofSeconds(10);

    public static Optional<VolumeUsage> of(Path dir) {
        if (!Files.isDirectory(dir) || !Disks.mounted(dir)) {
            return Optional.empty();
        }
        try {
            var store = Files.getFileStore(dir);
            long used = store.getTotalSpace() - store.getUnallocatedSpace();
            // -x: the disks mounted inside (a database's cluster) are counted as the image files they are.
            var du = Commands.run(List.of("du", "-s", "-x", "-B1", dir.toString()), QUICK);
            if (!du.ok()) {
                return Optional.empty();
            }
            return Optional.of(new VolumeUsage(used, Long.parseLong(du.stdout().split("\\s+")[0])));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
