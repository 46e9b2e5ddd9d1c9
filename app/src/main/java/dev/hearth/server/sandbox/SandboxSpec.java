package dev.hearth.server.sandbox;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What a sandbox runs: a read-only image rootfs, the main process, its environment, /data, Hearth's
 * tools (mounted read-only at /.hearth, for images without a shell), files of the host mounted
 * read-only over the image's (its resolver and hosts), the network slot and limits.
 */
public record SandboxSpec(String sandboxId, String hostname, Path rootfs, List<String> args, Map<String, String> env,
                          String cwd, Path dataDir, Path toolsDir, List<FileMount> files, Slot network,
                          long memoryBytes, double cpus, int pids) {

    /** A host file seen read-only at {@code destination} inside, whatever the image has there. */
    public record FileMount(Path source, String destination) {
    }
}
