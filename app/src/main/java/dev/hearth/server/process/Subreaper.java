package dev.hearth.server.process;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes this JVM a child subreaper (prctl PR_SET_CHILD_SUBREAPER) and reaps the sandbox processes
 * that runsc daemonizes and that are reparented here. Without it they wait for PID 1 to reap them,
 * and every runsc delete waits with them (~1.3 s here). Only zombies named {@code exe} (runsc
 * re-executing itself) are reaped: never a process the JVM started and will wait for itself.
 *
 * <p>A pass reads every process's /proc stat. It runs every 100 ms while a command runs (a runsc
 * delete waits for its sandbox's reaping) and for a few seconds after, and once a second otherwise:
 * at 100 ms always, it was half of an idle server's CPU.
 */
public final class Subreaper {
    private static final Logger LOG = LoggerFactory.getLogger(Subreaper.class);
    private static final int PR_SET_CHILD_SUBREAPER = 36;
    private static final int WNOHANG = 1;
    private static final long BUSY = Duration.ofMillis(100).toNanos();
    private static final long IDLE = Duration.ofSeconds(1).toNanos();
    private static final long AFTERWARDS = Duration.ofSeconds(3).toNanos();
    private static final AtomicInteger RUNNING = new AtomicInteger();
    private static volatile long lastCommand = System.nanoTime();
    private static volatile Thread reaper;

    private Subreaper() {
    }

    /**
     * Becomes a subreaper and starts reaping; false (and a log line) where the kernel says no. Once
     * per JVM: every server started in one JVM (the tests start hundreds) shares the one reaper, where
     * each used to start its own, all passing over /proc for ever.
     */
    public static synchronized boolean start() {
        if (reaper != null) {
            return true;
        }
        try {
            var linker = Linker.nativeLinker();
            var lookup = linker.defaultLookup();
            MethodHandle prctl = linker.downcallHandle(lookup.find("prctl").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG),
                    Linker.Option.firstVariadicArg(1));
            MethodHandle waitpid = linker.downcallHandle(lookup.find("waitpid").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            int rc = (int) prctl.invokeExact(PR_SET_CHILD_SUBREAPER, 1L);
            if (rc != 0) {
                LOG.warn("prctl(PR_SET_CHILD_SUBREAPER) failed; sandbox deletes will be slower");
                return false;
            }
            reaper = Thread.ofVirtual().name("subreaper").start(() -> reapForever(waitpid));
            return true;
        } catch (Throwable e) {
            LOG.warn("cannot become a child subreaper; sandbox deletes will be slower", e);
            return false;
        }
    }

    /** A command is starting: the reaper looks every 100 ms until a few seconds after it ends. */
    public static void commandStarted() {
        RUNNING.incrementAndGet();
        lastCommand = System.nanoTime();
        var thread = reaper;
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    public static void commandEnded() {
        RUNNING.decrementAndGet();
        lastCommand = System.nanoTime();
    }

    private static long period() {
        return RUNNING.get() > 0 || System.nanoTime() - lastCommand < AFTERWARDS ? BUSY : IDLE;
    }

    private static void reapForever(MethodHandle waitpid) {
        String self = String.valueOf(ProcessHandle.current().pid());
        while (!Thread.currentThread().isInterrupted()) {
            try {
                LockSupport.parkNanos(period());
                try (var procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
                    for (Path proc : procs) {
                        if (isOurExeZombie(proc, self)) {
                            int pid = Integer.parseInt(proc.getFileName().toString());
                            int reaped = (int) waitpid.invokeExact(pid, MemorySegment.NULL, WNOHANG);
                            LOG.debug("reaped sandbox process {} ({})", pid, reaped);
                        }
                    }
                }
            } catch (Throwable e) {
                LOG.debug("reaping pass failed; trying again", e);
            }
        }
    }

    /** /proc/PID/stat is "pid (comm) state ppid ..."; comm may hold spaces, so split after the last ')'. */
    private static boolean isOurExeZombie(Path proc, String self) {
        try {
            String stat = Files.readString(proc.resolve("stat"));
            int open = stat.indexOf('(');
            int close = stat.lastIndexOf(')');
            String comm = stat.substring(open + 1, close);
            String[] rest = stat.substring(close + 2).split(" ", 3);
            return rest[0].equals("Z") && rest[1].equals(self) && comm.equals("exe");
        } catch (IOException | RuntimeException gone) {
            return false;
        }
    }
}
