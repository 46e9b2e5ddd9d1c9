package dev.hearth.server.computers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The host's memory as Linux counts it in /proc/meminfo: total, and available for new work without swapping. */
final class HostMemory {
    private static final Path MEMINFO = Path.of("/proc/meminfo");

    private HostMemory() {
    }

    static long total() {
        return read("MemTotal:");
    }

    /** MemAvailable: free memory plus the caches the kernel would give up. */
    static long available() {
        return read("MemAvailable:");
    }

    // Long.MAX_VALUE when unknown: a host whose memory cannot be read is never taken for short of it.
    private static long read(String field) {
        try {
            for (String line : Files.readAllLines(MEMINFO)) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.substring(field.length()).replace("kB", "").strip()) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return Long.MAX_VALUE;
        }
        return Long.MAX_VALUE;
    }
}
