package dev.hearth.server.pgwire;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One public port per database: reads only the first packet of each connection (SSLRequest,
 * GSSENCRequest, StartupMessage or CancelRequest), wakes the database if needed (or, for a
 * database another node runs, connects to that node's port for it), and from then on relays bytes
 * both ways. TLS and SCRAM (with channel binding) stay end to end between the client
 * and PostgreSQL: the proxy holds no key and never sees a password. A bare TCP connect, a slow
 * client, or an unknown first packet wakes nothing.
 */
public final class WakeProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WakeProxy.class);
    static final int SSL_REQUEST = 80877103;
    static final int GSSENC_REQUEST = 80877104;
    static final int CANCEL_REQUEST = 80877102;
    // PostgreSQL's own cap on a startup packet.
    private static final int MAX_STARTUP = 10_000;
    private static final int FIRST_PACKET_MILLIS = 10_000;
    private static final int BUFFER = 32 * 1024;
    static final java.time.Duration REFUSED_FOR = java.time.Duration.ofSeconds(60);
    private static final long RETRY_MILLIS = 200;

    private final Backends backends;
    private final Map<String, List<ServerSocket>> listeners = new ConcurrentHashMap<>();

    public WakeProxy(Backends backends) {
        this.backends = backends;
    }

    /**
     * Starts listening for one database on {@code port} of each host (the public one, and where
     * computers reach it); fails if the port is taken. Listeners it had on another port are closed;
     * those on this port stay (a database moving between nodes keeps its port open throughout).
     */
    public void open(String databaseId, List<String> hosts, int port) throws IOException {
        var open = listeners.get(databaseId);
        if (open != null && !open.isEmpty() && open.getFirst().getLocalPort() == port) {
            return;
        }
        var servers = new ArrayList<ServerSocket>();
        try {
            for (String host : hosts) {
                var server = new ServerSocket();
                servers.add(server);
                server.setReuseAddress(true);
                server.bind(new InetSocketAddress(InetAddress.getByName(host), port), 512);
            }
        } catch (IOException e) {
            servers.forEach(WakeProxy::closeQuietly);
            throw e;
        }
        var previous = listeners.put(databaseId, servers);
        if (previous != null) {
            previous.forEach(WakeProxy::closeQuietly);
        }
        servers.forEach(server -> Thread.ofVirtual().name("pg-accept-" + port).start(() -> accept(databaseId, server)));
    }

    /** Stops listening for one database (connections already relayed go on until they end). */
    public void close(String databaseId) {
        var servers = listeners.remove(databaseId);
        if (servers != null) {
            servers.forEach(WakeProxy::closeQuietly);
        }
    }

    private static void closeQuietly(ServerSocket server) {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing a listener cannot fail in a way worth reporting
        }
    }

    /** Whether {@code port} could be listened on now. */
    public static boolean free(String host, int port) {
        try (var probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(InetAddress.getByName(host), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void accept(String databaseId, ServerSocket server) {
        while (!server.isClosed()) {
            try {
                var client = server.accept();
                Thread.ofVirtual().name("pg-conn").start(() -> serve(databaseId, client));
            } catch (IOException e) {
                if (!server.isClosed()) {
                    LOG.warn("accepting on port {} failed: {}", server.getLocalPort(), e.toString());
                }
            }
        }
    }

    private void serve(String databaseId, Socket client) {
        try (client) {
            client.setTcpNoDelay(true);
            client.setSoTimeout(FIRST_PACKET_MILLIS);
            var in = new DataInputStream(client.getInputStream());
            byte[] first = firstPacket(in, client.getOutputStream());
            if (first == null) {
                return;
            }
            client.setSoTimeout(0);
            int code = ByteBuffer.wrap(first, 4, 4).getInt();
            if (code == CANCEL_REQUEST) {
                cancel(databaseId, first);
                return;
            }
            relay(databaseId, client, first);
        } catch (SocketTimeoutException | EOFException quiet) {
            // a client that said nothing useful: nothing was woken
        } catch (IOException e) {
            LOG.debug("connection to database {} ended: {}", databaseId, e.toString());
        }
    }

    /**
     * The first packet that needs the backend: a GSSENCRequest is answered "N" here (the client then
     * asks for TLS or starts in plaintext on the same connection). Null for anything unknown.
     */
    private static byte[] firstPacket(DataInputStream in, OutputStream out) throws IOException {
        for (int i = 0; i < 2; i++) {
            int length = in.readInt();
            if (length < 8 || length > MAX_STARTUP) {
                return null;
            }
            byte[] packet = new byte[length];
            ByteBuffer.wrap(packet).putInt(length);
            in.readFully(packet, 4, length - 4);
            int code = ByteBuffer.wrap(packet, 4, 4).getInt();
            if (code == GSSENC_REQUEST && length == 8) {
                out.write('N');
                out.flush();
                continue;
            }
            boolean startup = (code >>> 16) == 3;
            if ((code == SSL_REQUEST && length == 8) || code == CANCEL_REQUEST || startup) {
                return packet;
            }
            return null;
        }
        return null;
    }

    private void cancel(String databaseId, byte[] packet) {
        var target = backends.cancelTarget(databaseId);
        if (target.isEmpty()) {
            return;
        }
        try (var backend = new Socket()) {
            backend.connect(target.get(), 10_000);
            backend.getOutputStream().write(packet);
            backend.getOutputStream().flush();
            backend.getInputStream().read();
        } catch (IOException e) {
            LOG.debug("cancel request to database {} failed: {}", databaseId, e.toString());
        }
    }

    private void relay(String databaseId, Socket client, byte[] first) throws IOException {
        backends.opened(databaseId);
        try {
            Socket connected;
            try {
                connected = connect(databaseId);
            } catch (Backends.Refused refused) {
                refuse(client.getOutputStream(), refused);
                return;
            }
            try (var backend = connected) {
                backend.getOutputStream().write(first);
                backend.getOutputStream().flush();
                var up = Thread.ofVirtual().name("pg-up").start(() -> pump(client, backend));
                pump(backend, client);
                join(up);
            }
        } finally {
            backends.closed(databaseId);
        }
    }

    /**
     * A connection to where the database is now. A refused connect to another node is tried again (the
     * target asked for anew) for up to {@link #REFUSED_FOR}: the node that runs the database may be starting after
     * a crash or a restart, and opens its ports once it has put its databases back; the client waits
     * (as for a wake) instead of seeing its connection closed.
     */
    private Socket connect(String databaseId) throws IOException, Backends.Refused {
        long deadline = System.nanoTime() + REFUSED_FOR.toNanos();
        for (int attempt = 0; ; attempt++) {
            var target = backends.wake(databaseId);
            var backend = new Socket();
            try {
                backend.setTcpNoDelay(true);
                backend.connect(target, 10_000);
                return backend;
            } catch (ConnectException refused) {
                backend.close();
                // This node's own clusters are on loopback: one that refuses is not starting elsewhere.
                if ((target.getAddress() != null && target.getAddress().isLoopbackAddress()) || System.nanoTime() > deadline) {
                    throw refused;
                }
                if (attempt == 0) {
                    LOG.info("database {}: {} refused a connection; trying again for up to {} s (its node may be"
                            + " starting)", databaseId, target, REFUSED_FOR.toSeconds());
                }
                pause();
            }
        }
    }

    private static void pause() throws IOException {
        try {
            Thread.sleep(RETRY_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while the database's node was starting");
        }
    }

    /** Copies until end of stream, then half-closes the other side so that it sees the end too. */
    private static void pump(Socket from, Socket to) {
        byte[] buffer = new byte[BUFFER];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
            to.shutdownOutput();
        } catch (IOException e) {
            closeQuietly(to);
            closeQuietly(from);
        }
    }

    /**
     * A PostgreSQL ErrorResponse: libpq shows it whether it was waiting for the answer to an
     * SSLRequest or to a StartupMessage.
     */
    static void refuse(OutputStream out, Backends.Refused refused) throws IOException {
        var fields = new ByteArrayOutputStream();
        field(fields, 'S', "FATAL");
        field(fields, 'V', "FATAL");
        field(fields, 'C', refused.sqlState());
        field(fields, 'M', refused.getMessage());
        fields.write(0);
        byte[] body = fields.toByteArray();
        var message = ByteBuffer.allocate(1 + 4 + body.length).put((byte) 'E').putInt(4 + body.length).put(body);
        out.write(message.array());
        out.flush();
    }

    private static void field(ByteArrayOutputStream out, char type, String value) {
        out.write(type);
        out.writeBytes(value.getBytes(StandardCharsets.UTF_8));
        out.write(0);
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    @Override
    public void close() {
        listeners.keySet().forEach(this::close);
    }
}
