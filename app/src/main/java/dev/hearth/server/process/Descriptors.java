package dev.hearth.server.process;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Read, write, shutdown and close on a raw file descriptor through FFM, and the downcall lookup, for the
 * places that hold descriptors Java cannot wrap: runsc's terminal (received over SCM_RIGHTS) and the
 * waker's sockets (which need SO_ORIGINAL_DST).
 */
public final class Descriptors {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final int SHUT_RDWR = 2;
    private static final MethodHandle READ = downcall("read", ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG);
    private static final MethodHandle WRITE = downcall("write", ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG);
    private static final MethodHandle SHUTDOWN = downcall("shutdown", ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT);
    private static final MethodHandle CLOSE = downcall("close", ValueLayout.JAVA_INT, ValueLayout.JAVA_INT);

    private Descriptors() {
    }

    /** The C library's {@code name}, called with {@code args} and answering {@code result}. */
    public static MethodHandle downcall(String name, ValueLayout result, ValueLayout... args) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), FunctionDescriptor.of(result, args));
    }

    /** Blocking read; -1 at the end or on failure. */
    public static int read(int fd, byte[] buffer) {
        try (var arena = Arena.ofConfined()) {
            var segment = arena.allocate(buffer.length);
            long n = (long) READ.invokeExact(fd, segment, (long) buffer.length);
            if (n <= 0) {
                return -1;
            }
            MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, 0, buffer, 0, (int) n);
            return (int) n;
        } catch (Throwable e) {
            return -1;
        }
    }

    /** Writes the first {@code length} bytes, all of them. */
    public static void write(int fd, byte[] bytes, int length) throws IOException {
        try (var arena = Arena.ofConfined()) {
            var segment = arena.allocateFrom(ValueLayout.JAVA_BYTE, bytes);
            long off = 0;
            while (off < length) {
                long n = (long) WRITE.invokeExact(fd, segment.asSlice(off), (long) length - off);
                check((int) Math.min(n, 0), "write");
                off += n;
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    /** Ends both directions of a socket; a thread blocked in accept or read on it returns. */
    public static void shutdown(int fd) {
        try {
            int ignored = (int) SHUTDOWN.invokeExact(fd, SHUT_RDWR);
        } catch (Throwable ignored) {
            // best effort
        }
    }

    public static void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable ignored) {
            // nothing more to do with it
        }
    }

    /** A C call's return code: negative is failure. */
    public static void check(int rc, String what) throws IOException {
        if (rc < 0) {
            throw new IOException(what + " failed");
        }
    }
}
