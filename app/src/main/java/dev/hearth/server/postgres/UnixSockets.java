package dev.hearth.server.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import javax.net.SocketFactory;

/**
 * The PostgreSQL JDBC driver's way onto a cluster's private Unix socket ({@code socketFactory}, with the
 * socket's path as {@code socketFactoryArg}): the driver speaks to a {@link Socket}, and Java reaches
 * Unix sockets only as channels, so each socket here is a channel dressed as one. The address the
 * driver connects to is ignored; timeouts and TCP options mean nothing on it.
 */
public final class UnixSockets extends SocketFactory {
    private final Path path;

    /** Called by the driver with {@code socketFactoryArg}. */
    public UnixSockets(String path) {
        this.path = Path.of(path);
    }

    @Override
    public Socket createSocket() {
        return new ChannelSocket(path);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return connected();
    }

    private Socket connected() throws IOException {
        var socket = new ChannelSocket(path);
        socket.connect(null, 0);
        return socket;
    }

    private static final class ChannelSocket extends Socket {
        private final Path path;
        private SocketChannel channel;
        private int timeout;

        ChannelSocket(Path path) {
            this.path = path;
        }

        @Override
        public void connect(SocketAddress ignored, int timeoutMillis) throws IOException {
            channel = SocketChannel.open(UnixDomainSocketAddress.of(path));
        }

        @Override
        public void connect(SocketAddress ignored) throws IOException {
            connect(ignored, 0);
        }

        @Override
        public boolean isConnected() {
            return channel != null && channel.isConnected();
        }

        @Override
        public boolean isClosed() {
            return channel != null && !channel.isOpen();
        }

        @Override
        public InputStream getInputStream() {
            return Channels.newInputStream(channel);
        }

        @Override
        public OutputStream getOutputStream() {
            return Channels.newOutputStream(channel);
        }

        @Override
        public synchronized void close() throws IOException {
            if (channel != null) {
                channel.close();
            }
        }

        @Override
        public void setTcpNoDelay(boolean on) {
            // not TCP
        }

        @Override
        public boolean getTcpNoDelay() {
            return true;
        }

        @Override
        public void setKeepAlive(boolean on) {
            // not TCP
        }

        @Override
        public boolean getKeepAlive() {
            return false;
        }

        @Override
        public synchronized void setSoTimeout(int timeout) {
            this.timeout = timeout; // reads block: every use here is one short statement
        }

        @Override
        public synchronized int getSoTimeout() {
            return timeout;
        }

        @Override
        public synchronized int getSendBufferSize() {
            return 8192;
        }

        @Override
        public synchronized int getReceiveBufferSize() {
            return 8192;
        }

        @Override
        public synchronized void setSendBufferSize(int size) {
            // the kernel's default is enough
        }

        @Override
        public synchronized void setReceiveBufferSize(int size) {
            // the kernel's default is enough
        }
    }
}
