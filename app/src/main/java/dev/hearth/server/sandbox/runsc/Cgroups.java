package dev.hearth.server.sandbox.runsc;

import dev.hearth.server.crypto.Secrets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cgroups runsc makes for sandboxes, under a parent of this instance's own (cgroupsPath
 * /hearth/INSTANCE/ID in the OCI spec, INSTANCE a digest of its runsc root), and their clean-up.
 */
final class Cgroups {
    private static final Logger LOG = LoggerFactory.getLogger(Cgroups.class);

    private final String parent;

    Cgroups(Path runscRoot) {
        this.parent = parentOf(runscRoot);
    }

    /** The cgroup parent of the instance whose runsc root this is, relative to a controller's root. */
    static String parentOf(Path runscRoot) {
        return "hearth/" + Secrets.sha256(runscRoot.toAbsolutePath().normalize().toString()).substring(0, 10);
    }

    /** The cgroupsPath of a sandbox of this instance. */
    String pathOf(String sandboxId) {
        return "/" + parent + "/" + sandboxId;
    }

    /**
     * Sandboxes killed outright leave their cgroups (/sys/fs/cgroup/CONTROLLER/hearth/INSTANCE/ID).
     * Only this instance's are looked at, and rmdir only removes a cgroup with no processes.
     */
    int prune(Set<String> keep) {
        int removed = 0;
        try (var controllers = Files.newDirectoryStream(Path.of("/sys/fs/cgroup"))) {
            for (Path controller : controllers) {
                Path parent = controller.resolve(this.parent);
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
