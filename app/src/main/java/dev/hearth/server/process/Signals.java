package dev.hearth.server.process;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * kill(2) through FFM: PostgreSQL is stopped with SIGINT (fast shutdown) and SIGQUIT, which
 * {@link ProcessHandle} cannot send (it only has SIGTERM, a "smart" shutdown that waits for every
 * client, and SIGKILL).
 */
public final class Signals {
    public static final int SIGINT = 2;
    public static final int SIGQUIT = 3;
    public static final int SIGKILL = 9;
    public static final int SIGTERM = 15;
    public static final int SIGCONT = 18;
    public static final int SIGHUP = 1;

    private static final MethodHandle KILL = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("kill").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private Signals() {
    }

    /** Sends {@code signal}; false if there is no such process. */
    public static boolean send(long pid, int signal) {
        try {
            return (int) KILL.invokeExact((int) pid, signal) == 0;
        } catch (Throwable e) {
            throw new IllegalStateException("kill(" + pid + ", " + signal + ")", e);
        }
    }
}
