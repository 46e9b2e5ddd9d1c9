package dev.hearth.server.postgres;

import dev.hearth.server.process.Signals;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The postmasters of data directories as processes: found from their postmaster.pid, stopped (fast
 * shutdown, then harder), and the lock a dead one left released.
 */
final class Postmasters {
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private Postmasters() {
    }

    /** Stops a postmaster this process did not start (found in postmaster.pid after a restart of Hearth). */
    static void stop(ProcessHandle postmaster) {
        Signals.send(postmaster.pid(), Signals.SIGINT);
        if (waitFor(postmaster, STOP_GRACE)) {
            return;
        }
        Signals.send(postmaster.pid(), Signals.SIGQUIT);
        if (!waitFor(postmaster, Duration.ofSeconds(10))) {
            Signals.send(postmaster.pid(), Signals.SIGKILL);
            waitFor(postmaster, Duration.ofSeconds(10));
        }
    }

    /** The live postmaster of a data directory, if one runs (postmaster.pid names it, /proc confirms it). */
    static Optional<ProcessHandle> of(Path data) {
        try {
            Path pidFile = data.resolve("postmaster.pid");
            if (!Files.exists(pidFile)) {
                return Optional.empty();
            }
            // A standalone backend (postgres --single, which sets passwords while stopped) writes its pid
            // negated: one a killed Hearth left must be found too, or it holds the directory's lock.
            long pid = Math.abs(Long.parseLong(Files.readAllLines(pidFile).getFirst().strip()));
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().command().map(c -> c.endsWith("/postgres")).orElse(false));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Waits (up to the stop grace) for the process named in postmaster.pid to end, then removes the
     * lock file if its process is gone or a zombie: PostgreSQL counts a zombie (an orphan whose new
     * parent has not reaped it yet) as a live holder and would refuse the directory. True if free.
     */
    static boolean leftoverEnded(Path data) {
        var holder = of(data);
        if (holder.isPresent() && !waitFor(holder.get(), STOP_GRACE)) {
            stop(holder.get());
        }
        return releaseStaleLock(data);
    }

    private static boolean releaseStaleLock(Path data) {
        Path pidFile = data.resolve("postmaster.pid");
        try {
            // A standalone backend (postgres --single, which sets passwords while stopped) writes its pid
            // negated: one a killed Hearth left must be found too, or it holds the directory's lock.
            long pid = Math.abs(Long.parseLong(Files.readAllLines(pidFile).getFirst().strip()));
            Path stat = Path.of("/proc", String.valueOf(pid), "stat");
            if (Files.exists(stat)) {
                String text = Files.readString(stat);
                if (text.charAt(text.lastIndexOf(')') + 2) != 'Z') {
                    return false;
                }
            }
            Files.deleteIfExists(pidFile);
            return true;
        } catch (IOException | RuntimeException gone) {
            return !Files.exists(pidFile);
        }
    }

    private static boolean waitFor(ProcessHandle process, Duration limit) {
        try {
            process.onExit().get(limit.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return !process.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

}
