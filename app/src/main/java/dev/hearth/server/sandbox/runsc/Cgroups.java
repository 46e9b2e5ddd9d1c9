package dev.hearth.server.sandbox.runsc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The cgroups runsc makes for sandboxes (cgroupsPath /hearth/ID in the OCI spec), and their clean-up. */
final class Cgroups {
    private static final Logger LOG = LoggerFactory.getLogger(Cgroups.class);

    private Cgroups() {
    }

    /**
     * Sandboxes killed outright leave their cgroups (/sys/fs/cgroup/CONTROLLER/hearth/ID). rmdir only
     * removes a cgroup with no processes, so one still in use (by any instance) is never touched.
     */
    static int prune(Set<String> keep) {
        int removed = 0;
        try (var controllers = Files.newDirectoryStream(Path.of("/sys/fs/cgroup"))) {
            for (Path controller : controllers) {
                Path parent = controller.resolve("hearth");
                if (!Files.isDirectory(parent)) {
                    continue;
                }
                try (var groups = Files.newDirectoryStream(parent)) {
                    for (Path group : groups) {
                        if (Files.isDirectory(group) && !keep.contains(group.getFileName().toString())
                                && group.toFile().delete()) {
                            removed++;
                        }
                    }
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot prune cgroups", e);
        }
        return removed;
    }
}
