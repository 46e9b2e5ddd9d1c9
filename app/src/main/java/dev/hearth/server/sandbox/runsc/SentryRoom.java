package dev.hearth.server.sandbox.runsc;

/**
 * The host's memory limit on a sandbox over what its computer was given. gVisor's kernel (the
 * sentry) runs in the sandbox's cgroup beside the computer's processes, and its own heap grows
 * with the processes the computer has made: ~0.1 MiB each until it levels off near 150 MiB after a
 * couple of thousand (measured: a busybox computer running {@code /bin/true} in a loop). Under a
 * limit of exactly {@code memory_mb}, a 128 MiB computer was killed by the host's OOM killer after
 * ~1,500 commands, memory and all. The computer still sees {@code memory_mb} ({@code MemTotal}
 * comes from the limit at boot); the host allows the sentry this much more once it runs.
 */
final class SentryRoom {
    static final long FIXED = 256L << 20;

    private SentryRoom() {
    }

    /** The host's limit for a computer given {@code guestBytes} (a whole number of MiB). */
    static long hostLimit(long guestBytes) {
        return guestBytes + guestBytes / 4 + FIXED;
    }

    /** What the computer was given, from its sandbox's host limit (itself, if it was never raised). */
    static long guestOf(long hostBytes) {
        long guest = (hostBytes - FIXED) / 5 * 4;
        return guest > 0 && hostLimit(guest) == hostBytes ? guest : hostBytes;
    }
}
