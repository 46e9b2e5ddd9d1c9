package dev.hearth.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/** A computer's resources as options: what is given goes into {@code resources}; the rest stays. */
public final class ResourceOptions {
    @Option(names = "--cpus", paramLabel = "CPUS", description = "CPUs, 0.1 to the host's cores (default 1)")
    Double cpus;

    @Option(names = "--memory-mb", paramLabel = "MEMORY_MB", description = "memory in MB, 64 to 65536 (default 512)")
    Integer memoryMb;

    @Option(names = "--disk-mb", paramLabel = "DISK_MB", description = "disk in MB for /data and the root file system's changes (default 10240; PATCH only grows it)")
    Integer diskMb;

    @Option(names = "--pids", paramLabel = "PIDS", description = "processes at once, 16 to half the memory in MB (default: that, at most 1024)")
    Integer pids;

    Optional<Map<String, Object>> body() {
        var resources = new LinkedHashMap<String, Object>();
        if (cpus != null) {
            resources.put("cpus", cpus);
        }
        if (memoryMb != null) {
            resources.put("memory_mb", memoryMb);
        }
        if (pids != null) {
            resources.put("pids", pids);
        }
        if (diskMb != null) {
            resources.put("disk_mb", diskMb);
        }
        return resources.isEmpty() ? Optional.empty() : Optional.of(resources);
    }
}
