package dev.hearth.server.sandbox;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What a sandbox runs: a read-only image rootfs, the main process, its environment, /data, Hearth's
 * tools (mounted read-only at /.hearth, for images without a shell), files of the host mounted
 * read-only over the image's (its resolver and hosts), the network slot and limits.
 * {@code formerAddresses}: on a restore, the addresses of the sandboxes the memory image was taken
 * from. A socket connected from one of them can only be restored where that address is local (runsc
 * dies restoring it otherwise), so they are added to eth0 beside the slot's own.
 * {@code namedLater}: a sandbox of the warm pool, whose PID 1 sets the hostname at its claim; it may
 * (CAP_SYS_ADMIN), and drops that capability once it did, before anything else runs.
 */
public record SandboxSpec(String sandboxId, String hostname, Path rootfs, List<String> args, Map<String, String> env,
                          String cwd, Path dataDir, Path toolsDir, List<FileMount> files, Slot network,
                          long memoryBytes, double cpus, int pids, List<String> formerAddresses, boolean namedLater) {

    /** A host file seen read-only at {@code destination} inside, whatever the image has there. */
    public record FileMount(Path source, String destination) {
    }
}
