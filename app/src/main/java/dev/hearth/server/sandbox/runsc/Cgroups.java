package dev.hearth.server.sandbox.runsc;

import dev.hearth.server.crypto.Secrets;
import dev.hearth.server.sandbox.SandboxLimits;
import dev.hearth.server.sandbox.SandboxUsage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
    static final Path ROOT = Path.of("/sys/fs/cgroup");

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
        return "/" + group(sandboxId);
    }

    /** A sandbox's cgroup relative to a controller's root (v1) or the unified root (v2). */
    String group(String sandboxId) {
        return parent + "/" + sandboxId;
    }

    /**
     * CPU and memory of a sandbox: cgroup v1 (cpuacct.usage in ns, memory.usage_in_bytes) or v2
     * (cpu.stat usage_usec, memory.current); empty if its cgroup is gone.
     */
    Optional<SandboxUsage> usage(String sandboxId) {
        String group = group(sandboxId);
        try {
            Path cpuacct = ROOT.resolve("cpuacct").resolve(group).resolve("cpuacct.usage");
            if (Files.exists(cpuacct)) {
                long memory = number(ROOT.resolve("memory").resolve(group).resolve("memory.usage_in_bytes"));
                return Optional.of(new SandboxUsage(number(cpuacct) / 1e9, memory));
            }
            Path unified = ROOT.resolve(group);
            if (Files.exists(unified.resolve("cpu.stat"))) {
                long micros = keyed(unified.resolve("cpu.stat"), "usage_usec");
                return Optional.of(new SandboxUsage(micros / 1e6, number(unified.resolve("memory.current"))));
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
        String group = group(sandboxId);
        try {
            Path memory = ROOT.resolve("memory").resolve(group).resolve("memory.limit_in_bytes");
            if (Files.exists(memory)) {
                long quota = number(ROOT.resolve("cpu").resolve(group).resolve("cpu.cfs_quota_us"));
                long period = number(ROOT.resolve("cpu").resolve(group).resolve("cpu.cfs_period_us"));
                long tasks = number(ROOT.resolve("pids").resolve(group).resolve("pids.max"));
                return Optional.of(new SandboxLimits(SentryRoom.guestOf(number(memory)), (double) quota / period,
                        OciSpec.pidsOf(tasks)));
            }
            Path unified = ROOT.resolve(group);
            if (Files.exists(unified.resolve("memory.max"))) {
                String[] cpu = Files.readString(unified.resolve("cpu.max")).strip().split(" ");
                return Optional.of(new SandboxLimits(SentryRoom.guestOf(number(unified.resolve("memory.max"))),
                        Double.parseDouble(cpu[0]) / Double.parseDouble(cpu[1]),
                        OciSpec.pidsOf(number(unified.resolve("pids.max")))));
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("no limits for sandbox {}: {}", sandboxId, e.toString());
        }
        return Optional.empty();
    }

    /**
     * How many processes of the sandbox the host's OOM killer ended: cgroup v1's memory.oom_control
     * or v2's memory.events ({@code oom_kill N}); 0 when its cgroup is gone or does not say.
     */
    long oomKills(String sandboxId) {
        String group = group(sandboxId);
        for (Path file : List.of(ROOT.resolve("memory").resolve(group).resolve("memory.oom_control"),
                ROOT.resolve(group).resolve("memory.events"))) {
            try {
                return keyed(file, "oom_kill");
            } catch (IOException | NumberFormatException e) {
                LOG.debug("sandbox {}: no {}: {}", sandboxId, file.getFileName(), e.toString());
            }
        }
        return 0;
    }

    /**
     * Raises a started sandbox's memory limit from what its computer sees to {@link SentryRoom#hostLimit}:
     * cgroup v1 (memory.limit_in_bytes, after memory.memsw.limit_in_bytes if that is lower) or v2
     * (memory.max). Not raised (logged), the sandbox runs on under the computer's own limit.
     */
    void makeRoomForSentry(String sandboxId, long guestBytes) {
        String group = group(sandboxId);
        long bytes = SentryRoom.hostLimit(guestBytes);
        String limit = Long.toString(bytes);
        try {
            Path v1 = ROOT.resolve("memory").resolve(group);
            if (Files.exists(v1.resolve("memory.limit_in_bytes"))) {
                Path swap = v1.resolve("memory.memsw.limit_in_bytes");
                if (Files.exists(swap) && number(swap) < bytes) {
                    Files.writeString(swap, limit);
                }
                Files.writeString(v1.resolve("memory.limit_in_bytes"), limit);
            } else if (Files.exists(ROOT.resolve(group).resolve("memory.max"))) {
                Files.writeString(ROOT.resolve(group).resolve("memory.max"), limit);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("sandbox {}: its memory limit could not make room for gVisor's own kernel: {}", sandboxId,
                    e.toString());
        }
    }

    /** The number after {@code key} in a file of "key value" lines (cpu.stat, memory.events); 0 if it has none. */
    private static long keyed(Path file, String key) throws IOException {
        String prefix = key + " ";
        return Files.readAllLines(file).stream().filter(l -> l.startsWith(prefix))
                .mapToLong(l -> Long.parseLong(l.substring(prefix.length()).strip())).findFirst().orElse(0);
    }

    private static long number(Path file) throws IOException {
        return Long.parseLong(Files.readString(file).strip());
    }

    /** The sandboxes with a cgroup of this instance, under any controller. */
    Set<String> sandboxes() {
        var found = new TreeSet<String>();
        groups().forEach(g -> found.add(g.getFileName().toString()));
        return found;
    }

    /** Every sandbox cgroup of this instance (/sys/fs/cgroup/CONTROLLER/hearth/INSTANCE/ID), under every controller. */
    private List<Path> groups() {
        var found = new ArrayList<Path>();
        try (var controllers = Files.newDirectoryStream(ROOT)) {
            for (Path controller : controllers) {
                Path parent = controller.resolve(this.parent);
                if (Files.isDirectory(parent)) {
                    try (var groups = Files.newDirectoryStream(parent, Files::isDirectory)) {
                        groups.forEach(found::add);
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
        for (Path group : groups()) {
            if (!keep.contains(group.getFileName().toString()) && group.toFile().delete()) {
                removed++;
            }
        }
        return removed;
    }

    /** Removes the instance's parent cgroup under every controller (once its sandboxes' are gone). */
    void removeParent() {
        try (var controllers = Files.newDirectoryStream(ROOT)) {
            for (Path controller : controllers) {
                controller.resolve(parent).toFile().delete();
            }
        } catch (IOException e) {
            LOG.warn("cannot list cgroups", e);
        }
    }

    /** The host's processes of a sandbox (its sentry, gofer and helpers), from its cgroup (v1 pids, or v2). */
    List<Long> processes(String sandboxId) {
        for (Path group : List.of(ROOT.resolve("pids").resolve(group(sandboxId)), ROOT.resolve(group(sandboxId)))) {
            Path procs = group.resolve("cgroup.procs");
            if (Files.exists(procs)) {
                try {
                    return Files.readAllLines(procs).stream().filter(l -> !l.isBlank()).map(l -> Long.parseLong(l.strip()))
                            .toList();
                } catch (IOException | NumberFormatException e) {
                    LOG.debug("no processes for sandbox {}: {}", sandboxId, e.toString());
                }
            }
        }
        return List.of();
    }
}
