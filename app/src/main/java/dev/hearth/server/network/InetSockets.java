package dev.hearth.server.network;

import static dev.hearth.server.process.Descriptors.check;
import static dev.hearth.server.process.Descriptors.close;
import static dev.hearth.server.process.Descriptors.downcall;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * TCP sockets through FFM, for the one thing Java's have no API for: the destination a connection
 * had before nftables redirected it (getsockopt SO_ORIGINAL_DST), which tells the waker which
 * computer and port it was meant for. Linux, IPv4; struct sockaddr_in laid out by hand.
 */
final class InetSockets {
    private static final int AF_INET = 2;
    private static final int SOCK_STREAM = 1;
    private static final int SOL_SOCKET = 1;
    private static final int SO_REUSEADDR = 2;
    private static final int SOL_IP = 0;
    private static final int SO_ORIGINAL_DST = 80;
    private static final int SOCKADDR_IN = 16;

    private static final MethodHandle SOCKET = downcall("socket", ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT);
    private static final MethodHandle SETSOCKOPT = downcall("setsockopt", ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT);
    private static final MethodHandle GETSOCKOPT = downcall("getsockopt", ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS);
    private static final MethodHandle BIND = downcall("bind", ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_INT);
    private static final MethodHandle LISTEN = downcall("listen", ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT);
    private static final MethodHandle ACCEPT = downcall("accept", ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.ADDRESS);
    private static final MethodHandle GETSOCKNAME = downcall("getsockname", ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.ADDRESS);
    private static final MethodHandle GETPEERNAME = downcall("getpeername", ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.ADDRESS);

    private InetSockets() {
    }

    /** A listening TCP socket on {@code address}:{@code port} (0 picks one). */
    static int listen(InetAddress address, int port) throws IOException {
        try (var arena = Arena.ofConfined()) {
            int fd = (int) SOCKET.invokeExact(AF_INET, SOCK_STREAM, 0);
            check(fd, "socket");
            var one = arena.allocateFrom(ValueLayout.JAVA_INT, 1);
            check((int) SETSOCKOPT.invokeExact(fd, SOL_SOCKET, SO_REUSEADDR, one, 4), "setsockopt");
            var sockaddr = sockaddr(arena, address, port);
            if ((int) BIND.invokeExact(fd, sockaddr, SOCKADDR_IN) < 0 || (int) LISTEN.invokeExact(fd, 128) < 0) {
                close(fd);
                throw new IOException("cannot listen on " + address.getHostAddress() + ":" + port);
            }
            return fd;
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    static int accept(int fd) throws IOException {
        try {
            int client = (int) ACCEPT.invokeExact(fd, MemorySegment.NULL, MemorySegment.NULL);
            check(client, "accept");
            return client;
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    static InetSocketAddress peer(int fd) throws IOException {
        return address(fd, GETPEERNAME, "getpeername");
    }

    static int localPort(int fd) throws IOException {
        return address(fd, GETSOCKNAME, "getsockname").getPort();
    }

    /** Where the connection was going before the firewall redirected it here. */
    static InetSocketAddress originalDestination(int fd) throws IOException {
        try (var arena = Arena.ofConfined()) {
            var sockaddr = arena.allocate(SOCKADDR_IN);
            var length = arena.allocateFrom(ValueLayout.JAVA_INT, SOCKADDR_IN);
            check((int) GETSOCKOPT.invokeExact(fd, SOL_IP, SO_ORIGINAL_DST, sockaddr, length), "SO_ORIGINAL_DST");
            return decode(sockaddr);
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    private static InetSocketAddress address(int fd, MethodHandle call, String what) throws IOException {
        try (var arena = Arena.ofConfined()) {
            var sockaddr = arena.allocate(SOCKADDR_IN);
            var length = arena.allocateFrom(ValueLayout.JAVA_INT, SOCKADDR_IN);
            check((int) call.invokeExact(fd, sockaddr, length), what);
            return decode(sockaddr);
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    /** struct sockaddr_in: family (host order), port and address (network order), 8 bytes of zeros. */
    private static MemorySegment sockaddr(Arena arena, InetAddress address, int port) {
        var s = arena.allocate(SOCKADDR_IN);
        s.set(ValueLayout.JAVA_SHORT, 0, (short) AF_INET);
        s.set(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) port);
        MemorySegment.copy(address.getAddress(), 0, s, ValueLayout.JAVA_BYTE, 4, 4);
        return s;
    }

    private static InetSocketAddress decode(MemorySegment s) throws UnknownHostException {
        int port = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
        byte[] ip = new byte[4];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 4, ip, 0, 4);
        return new InetSocketAddress(InetAddress.getByAddress(ip), port);
    }
}
