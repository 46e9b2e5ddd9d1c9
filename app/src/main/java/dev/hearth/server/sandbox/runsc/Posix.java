package dev.hearth.server.sandbox.runsc;

import static dev.hearth.server.process.Descriptors.check;
import static dev.hearth.server.process.Descriptors.close;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;

/**
 * The few POSIX calls Java has no API for, through FFM: a Unix socket that receives a file
 * descriptor (SCM_RIGHTS; runsc hands over a terminal's master end that way), and TIOCSWINSZ and
 * blocking mode on such a descriptor (read, write and close are {@code process.Descriptors}'). Linux x86-64 and aarch64 struct layouts.
 */
final class Posix {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final int AF_UNIX = 1;
    private static final int SOCK_STREAM = 1;
    private static final int SOL_SOCKET = 1;
    private static final int SCM_RIGHTS = 1;
    private static final long TIOCSWINSZ = 0x5414;

    private static final MethodHandle SOCKET = fn("socket", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle BIND = fn("bind", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle LISTEN = fn("listen", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle ACCEPT = fn("accept", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    private static final MethodHandle RECVMSG = fn("recvmsg", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle IOCTL = LINKER.downcallHandle(LINKER.defaultLookup().find("ioctl").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
            Linker.Option.firstVariadicArg(2));

    private static final MethodHandle FCNTL = LINKER.downcallHandle(LINKER.defaultLookup().find("fcntl").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(2));
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 0x800;

    private Posix() {
    }

    /** runsc hands the terminal over non-blocking; our reader thread wants to block. */
    static void makeBlocking(int fd) throws IOException {
        try {
            int flags = (int) FCNTL.invokeExact(fd, F_GETFL, 0);
            check(flags, "fcntl F_GETFL");
            check((int) FCNTL.invokeExact(fd, F_SETFL, flags & ~O_NONBLOCK), "fcntl F_SETFL");
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    private static MethodHandle fn(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor);
    }

    /** A listening Unix stream socket at {@code path} (at most 107 bytes). */
    static int listen(String path) throws IOException {
        try (var arena = Arena.ofConfined()) {
            int fd = (int) SOCKET.invokeExact(AF_UNIX, SOCK_STREAM, 0);
            check(fd, "socket");
            var address = arena.allocate(110);
            address.set(ValueLayout.JAVA_SHORT, 0, (short) AF_UNIX);
            byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
            if (bytes.length > 107) {
                throw new IOException("socket path too long: " + path);
            }
            MemorySegment.copy(bytes, 0, address, ValueLayout.JAVA_BYTE, 2, bytes.length);
            check((int) BIND.invokeExact(fd, address, 110), "bind " + path);
            check((int) LISTEN.invokeExact(fd, 1), "listen");
            return fd;
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    /** Accepts one connection and receives the descriptor it sends; -1 if the socket was shut down. */
    static int receiveDescriptor(int listening) throws IOException {
        try (var arena = Arena.ofConfined()) {
            int conn = (int) ACCEPT.invokeExact(listening, MemorySegment.NULL, MemorySegment.NULL);
            if (conn < 0) {
                return -1;
            }
            try {
                var data = arena.allocate(256);
                var iov = arena.allocate(16, 8);
                iov.set(ValueLayout.ADDRESS, 0, data);
                iov.set(ValueLayout.JAVA_LONG, 8, 256);
                var control = arena.allocate(64, 8);
                var msg = arena.allocate(56, 8);
                msg.set(ValueLayout.ADDRESS, 16, iov);
                msg.set(ValueLayout.JAVA_LONG, 24, 1);
                msg.set(ValueLayout.ADDRESS, 32, control);
                msg.set(ValueLayout.JAVA_LONG, 40, 64);
                long n = (long) RECVMSG.invokeExact(conn, msg, 0);
                if (n < 0 || control.get(ValueLayout.JAVA_INT, 8) != SOL_SOCKET
                        || control.get(ValueLayout.JAVA_INT, 12) != SCM_RIGHTS) {
                    throw new IOException("runsc sent no terminal descriptor");
                }
                return control.get(ValueLayout.JAVA_INT, 16);
            } finally {
                close(conn);
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    /** Sets a terminal's window size (TIOCSWINSZ). */
    static void resize(int fd, int columns, int rows) throws IOException {
        try (var arena = Arena.ofConfined()) {
            var size = arena.allocate(8, 2);
            size.set(ValueLayout.JAVA_SHORT, 0, (short) rows);
            size.set(ValueLayout.JAVA_SHORT, 2, (short) columns);
            check((int) IOCTL.invokeExact(fd, TIOCSWINSZ, size), "ioctl TIOCSWINSZ");
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }
}
