package dev.hearth.server.sandbox.runsc;

import dev.hearth.server.crypto.Secrets;
import dev.hearth.server.sandbox.SandboxLimits;
import dev.hearth.server.sandbox.SandboxUsage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
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
     * CPU and memory of a sandbox: cgroup v1 (cpuacct.usage in ns, memory.usage_in_bytes) or v2
     * (cpu.stat usage_usec, memory.current); empty if its cgroup is gone.
     */
    Optional<SandboxUsage> usage(String sandboxId) {
        Path root = Path.of("/sys/fs/cgroup");
        String group = pathOf(sandboxId).substring(1);
        try {
            Path cpuacct = root.resolve("cpuacct").resolve(group).resolve("cpuacct.usage");
            if (Files.exists(cpuacct)) {
                long nanos = Long.parseLong(Files.readString(cpuacct).strip());
                long memory = Long.parseLong(Files.readString(root.resolve("memory").resolve(group)
                        .resolve("memory.usage_in_bytes")).strip());
                return Optional.of(new SandboxUsage(nanos / 1e9, memory));
            }
            Path unified = root.resolve(group);
            if (Files.exists(unified.resolve("cpu.stat"))) {
                long micros = Files.readAllLines(unified.resolve("cpu.stat")).stream()
                        .filter(l -> l.startsWith("usage_usec ")).mapToLong(l -> Long.parseLong(l.substring(11).strip()))
                        .findFirst().orElse(0);
                long memory = Long.parseLong(Files.readString(unified.resolve("memory.current")).strip());
                return Optional.of(new SandboxUsage(micros / 1e6, memory));
            }
        } catch (IOException | NumberFormatException e) {
            LOG.debug("no usage for sandbox {}: {}", sandboxId, e.toString());
        }
        return Optional.empty();
    }

    /**
     * The limits its spec gave a sandbox (see {@link OciSpec}): cgroup v1 (memory.limit_in_bytes,
     * cpu.cfs_quota_us over cpu.cfs_period_us, pids.max) or v2 (memory.max, cpu.max, pids.max).
     */
    Optional<SandboxLimits> limits(String sandboxId) {
        Path root = Path.of("/sys/fs/cgroup");
        String group = pathOf(sandboxId).substring(1);
        try {
            Path memory = root.resolve("memory").resolve(group).resolve("memory.limit_in_bytes");
            if (Files.exists(memory)) {
                long quota = number(root.resolve("cpu").resolve(group).resolve("cpu.cfs_quota_us"));
                long period = number(root.resolve("cpu").resolve(group).resolve("cpu.cfs_period_us"));
                long tasks = number(root.resolve("pids").resolve(group).resolve("pids.max"));
                return Optional.of(new SandboxLimits(number(memory), (double) quota / period, OciSpec.pidsOf(tasks)));
            }
            Path unified = root.resolve(group);
            if (Files.exists(unified.resolve("memory.max"))) {
                String[] cpu = Files.readString(unified.resolve("cpu.max")).strip().split(" ");
                return Optional.of(new SandboxLimits(number(unified.resolve("memory.max")),
                        Double.parseDouble(cpu[0]) / Double.parseDouble(cpu[1]),
                        OciSpec.pidsOf(number(unified.resolve("pids.max")))));
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("no limits for sandbox {}: {}", sandboxId, e.toString());
        }
        return Optional.empty();
    }

    private static long number(Path file) throws IOException {
        return Long.parseLong(Files.readString(file).strip());
    }

    /** The sandboxes with a cgroup of this instance, under any controller. */
    Set<String> sandboxes() {
        var found = new TreeSet<String>();
        try (var controllers = Files.newDirectoryStream(Path.of("/sys/fs/cgroup"))) {
            for (Path controller : controllers) {
                Path parent = controller.resolve(this.parent);
                if (Files.isDirectory(parent)) {
                    try (var groups = Files.newDirectoryStream(parent, Files::isDirectory)) {
                        groups.forEach(g -> found.add(g.getFileName().toString()));
                    }
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot list cgroups", e);
        }
        return found;
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
