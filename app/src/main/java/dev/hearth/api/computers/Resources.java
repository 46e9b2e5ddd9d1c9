package dev.hearth.api.computers;

/**
 * What its sandbox may use: CPUs (a CFS quota), memory (the cgroup's limit) and processes (RLIMIT_NPROC
 * inside, so a fork bomb meets EAGAIN long before the host's limit would take the sandbox down) and disk
 * (a file system of that size for everything it keeps).
 */
public record Resources(double cpus, int memoryMb, int pids, int diskMb) {
    /** Every process costs the sandbox about 0.8 MB of its memory: more than this would meet the OOM killer first. */
    public static int maxPids(int memoryMb) {
        return Math.min(16_384, memoryMb / 2);
    }

    public static int defaultPids(int memoryMb) {
        return Math.min(1024, maxPids(memoryMb));
    }
}
