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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes this JVM a child subreaper (prctl PR_SET_CHILD_SUBREAPER) and reaps the sandbox processes
 * that runsc daemonizes and that are reparented here. Without it they wait for PID 1 to reap them,
 * and every runsc delete waits with them (~1.3 s here). Only zombies named {@code exe} (runsc
 * re-executing itself) are reaped: never a process the JVM started and will wait for itself.
 */
public final class Subreaper {
    private static final Logger LOG = LoggerFactory.getLogger(Subreaper.class);
    private static final int PR_SET_CHILD_SUBREAPER = 36;
    private static final int WNOHANG = 1;

    private Subreaper() {
    }

    /** Becomes a subreaper and starts reaping; false (and a log line) where the kernel says no. */
    public static boolean start() {
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
            Thread.ofVirtual().name("subreaper").start(() -> reapForever(waitpid));
            return true;
        } catch (Throwable e) {
            LOG.warn("cannot become a child subreaper; sandbox deletes will be slower", e);
            return false;
        }
    }

    private static void reapForever(MethodHandle waitpid) {
        String self = String.valueOf(ProcessHandle.current().pid());
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(Duration.ofMillis(100));
                try (var procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
                    for (Path proc : procs) {
                        if (isOurExeZombie(proc, self)) {
                            int pid = Integer.parseInt(proc.getFileName().toString());
                            int reaped = (int) waitpid.invokeExact(pid, MemorySegment.NULL, WNOHANG);
                            LOG.debug("reaped sandbox process {} ({})", pid, reaped);
                        }
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (Throwable e) {
                LOG.debug("reaping pass failed; next one in 100 ms", e);
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
