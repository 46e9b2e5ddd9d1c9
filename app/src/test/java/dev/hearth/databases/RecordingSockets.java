package dev.hearth.databases;

import java.net.InetAddress;
import java.net.Socket;
import javax.net.SocketFactory;

/**
 * Plain sockets for pgjdbc ({@code socketFactory=} this class) that remember the last one made, so
 * that a test can compare its local port with the client port PostgreSQL saw.
 */
public final class RecordingSockets extends SocketFactory {
    private static final ThreadLocal<Socket> LAST = new ThreadLocal<>();

    public RecordingSockets() {
    }

    /** The local port of the last socket made on this thread. */
    static int lastLocalPort() {
        return LAST.get().getLocalPort();
    }

    private static Socket kept(Socket socket) {
        LAST.set(socket);
        return socket;
    }

    @Override
    public Socket createSocket() {
        return kept(new Socket());
    }

    @Override
    public Socket createSocket(String host, int port) {
        throw new UnsupportedOperationException("pgjdbc connects the socket itself");
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) {
        throw new UnsupportedOperationException("pgjdbc connects the socket itself");
    }

    @Override
    public Socket createSocket(InetAddress host, int port) {
        throw new UnsupportedOperationException("pgjdbc connects the socket itself");
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) {
        throw new UnsupportedOperationException("pgjdbc connects the socket itself");
    }
}
