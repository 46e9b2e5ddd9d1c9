package dev.hearth.server.sandbox.runsc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Room on the host for the tasks of many computers. Every thread and process takes a PID: an idle
 * gVisor sandbox is 30-40 threads (sentry, gofer, systrap's stubs) and its disk's ext4 mount a kernel
 * worker. With Debian's default {@code kernel.pid_max} of 32768 the host ran out of PIDs near 400
 * computers (bench DensityBench): runsc and Hearth's own threads then failed to start. Raised to the
 * 64-bit kernel's limit, as systemd does at boot on 64-bit hosts.
 */
public final class TaskRoom {
    private static final Logger LOG = LoggerFactory.getLogger(TaskRoom.class);
    private static final Path PID_MAX = Path.of("/proc/sys/kernel/pid_max");
    static final long WANTED = 4_194_304;

    private TaskRoom() {
    }

    /** Raises {@code kernel.pid_max} to {@value #WANTED} if it is lower; a host that refuses keeps its own. */
    public static void ensure() {
        try {
            long now = Long.parseLong(Files.readString(PID_MAX).strip());
            if (now < WANTED) {
                Files.writeString(PID_MAX, Long.toString(WANTED));
                LOG.info("raised kernel.pid_max from {} to {}: every thread of every sandbox takes a PID", now, WANTED);
            }
        } catch (IOException | NumberFormatException e) {
            LOG.warn("cannot raise kernel.pid_max ({}): past about 400 computers, new ones may fail to start",
                    e.toString());
        }
    }
}
