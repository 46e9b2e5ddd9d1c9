package dev.hearth.server.sandbox;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What a sandbox runs: a read-only image rootfs, the main process, its environment, /data, Hearth's
 * tools (mounted read-only at /.hearth, for images without a shell), the network slot and limits.
 */
public record SandboxSpec(String sandboxId, String hostname, Path rootfs, List<String> args, Map<String, String> env,
                          String cwd, Path dataDir, Path toolsDir, Slot network, long memoryBytes, double cpus, int pids) {
}
