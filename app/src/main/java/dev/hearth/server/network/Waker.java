package dev.hearth.server.network;

import dev.hearth.server.process.Descriptors;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a new TCP connection to a sleeping computer lands (the firewall redirects it here): the
 * computer is woken, then this first connection is relayed to it; the next ones go to it directly.
 * The accepted sockets are native (their original destination needs getsockopt), so each relay
 * runs on platform threads; only connections made while a computer sleeps pass here.
 */
public final class Waker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Waker.class);
    private static final int CONNECT_MILLIS = 10_000;

    /** Wakes the computer a connection from {@code asker} is meant for; false refuses the connection. */
    @FunctionalInterface
    public interface Wake {
        boolean wake(InetAddress asker, InetSocketAddress target);
    }

    private final int listening;
    private final int port;
    private final Wake wake;
    private volatile boolean closed;

    private Waker(int listening, int port, Wake wake) {
        this.listening = listening;
        this.port = port;
        this.wake = wake;
    }

    public static Waker start(InetAddress address, Wake wake) throws IOException {
        int fd = InetSockets.listen(address, 0);
        var waker = new Waker(fd, InetSockets.localPort(fd), wake);
        Thread.ofPlatform().daemon().name("waker-accept").start(waker::accept);
        return waker;
    }

    public int port() {
        return port;
    }

    private void accept() {
        while (!closed) {
            try {
                int client = InetSockets.accept(listening);
                Thread.ofPlatform().daemon().name("waker-conn").start(() -> serve(client));
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("the waker's accept failed: {}", e.toString());
                }
            }
        }
    }

    private void serve(int client) {
        try {
            var target = InetSockets.originalDestination(client);
            var asker = peer(client);
            if (!wake.wake(asker, target)) {
                return;
            }
            try (var computer = new Socket()) {
                computer.connect(target, CONNECT_MILLIS);
                relay(client, computer);
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("a connection through the waker ended: {}", e.toString());
        } finally {
            Descriptors.close(client);
        }
    }

    private static InetAddress peer(int fd) throws IOException {
        return InetSockets.peer(fd).getAddress();
    }

    /** Bytes both ways until either side ends; then both are shut. */
    private static void relay(int client, Socket computer) throws IOException {
        OutputStream toComputer = computer.getOutputStream();
        InputStream fromComputer = computer.getInputStream();
        var upstream = Thread.ofPlatform().daemon().name("waker-up").start(() -> {
            byte[] buffer = new byte[32 * 1024];
            try {
                for (int n; (n = Descriptors.read(client, buffer)) > 0; ) {
                    toComputer.write(buffer, 0, n);
                }
                computer.shutdownOutput();
            } catch (IOException ignored) {
                // the computer's side went away; the other direction notices too
            }
        });
        byte[] buffer = new byte[32 * 1024];
        try {
            for (int n; (n = fromComputer.read(buffer)) > 0; ) {
                Descriptors.write(client, buffer, n);
            }
        } finally {
            Descriptors.shutdown(client);
            try {
                upstream.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        Descriptors.shutdown(listening);
        Descriptors.close(listening);
    }
}
