package dev.hearth.api.computers;

import java.time.Instant;

/**
 * {@code GET /computers/{cmp}/metrics}: what a computer uses now. CPU and memory come from its
 * sandbox's cgroup (gVisor's own memory included) and are null while it does not run, as is the count
 * of processes its agent sees and of those it ended because the computer was out of memory (since
 * the agent started: a restart of the computer counts from zero); disk is what
 * its disk holds ({@code disk_size_bytes} null for a computer without a disk of its own).
 */
public record ComputerMetrics(String computer, ComputerState state, Double cpuSeconds, Long memoryBytes,
                              Integer processes, Integer memoryKills, MemoryKill lastMemoryKill,
                              long diskUsedBytes, Long diskSizeBytes, Instant measuredAt) {
}
