package dev.hearth.server.network;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DNS server computers ask, on the services address (port 53, UDP and TCP). It knows the asker
 * by its source address: {@code NAME.internal} is a computer of the asker's workspace and
 * {@code NAME.db.internal} one of its databases; every other name is asked of the upstream
 * resolvers. An address that is no computer's is refused.
 */
public final class Resolver implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Resolver.class);
    private static final int UDP_MAX = 4096;

    private final DatagramSocket udp;
    private final ServerSocket tcp;
    private final Answers answers;

    private Resolver(DatagramSocket udp, ServerSocket tcp, Answers answers) {
        this.udp = udp;
        this.tcp = tcp;
        this.answers = answers;
    }

    /** Listens on {@code address}:{@code port} (53 on the services address; tests may pick another). */
    public static Resolver start(InetAddress address, int port, Directory directory,
                                 List<InetSocketAddress> upstreams) throws IOException {
        var udp = new DatagramSocket(null);
        udp.setReuseAddress(true);
        udp.bind(new InetSocketAddress(address, port));
        var tcp = new ServerSocket();
        tcp.setReuseAddress(true);
        tcp.bind(new InetSocketAddress(address, udp.getLocalPort()), 64);
        var resolver = new Resolver(udp, tcp, new Answers(directory, upstreams));
        Thread.ofVirtual().name("dns-udp").start(resolver::serveUdp);
        Thread.ofVirtual().name("dns-tcp").start(resolver::serveTcp);
        LOG.info("computers' resolver on {}:{} (upstream {})", address.getHostAddress(), udp.getLocalPort(), upstreams);
        return resolver;
    }

    public int port() {
        return udp.getLocalPort();
    }

    private void serveUdp() {
        while (!udp.isClosed()) {
            var packet = new DatagramPacket(new byte[UDP_MAX], UDP_MAX);
            try {
                udp.receive(packet);
            } catch (IOException e) {
                if (!udp.isClosed()) {
                    LOG.warn("the resolver's UDP socket failed: {}", e.toString());
                }
                continue;
            }
            Thread.ofVirtual().name("dns-query").start(() -> answerUdp(packet));
        }
    }

    private void answerUdp(DatagramPacket packet) {
        byte[] query = Arrays.copyOf(packet.getData(), packet.getLength());
        answers.answer(query, packet.getAddress(), 512).ifPresent(reply -> {
            try {
                udp.send(new DatagramPacket(reply, reply.length, packet.getSocketAddress()));
            } catch (IOException e) {
                LOG.debug("cannot answer {}: {}", packet.getSocketAddress(), e.toString());
            }
        });
    }

    private void serveTcp() {
        while (!tcp.isClosed()) {
            try {
                var client = tcp.accept();
                Thread.ofVirtual().name("dns-tcp-conn").start(() -> answerTcp(client));
            } catch (IOException e) {
                if (!tcp.isClosed()) {
                    LOG.warn("the resolver's TCP socket failed: {}", e.toString());
                }
            }
        }
    }

    /** DNS over TCP: each message behind a two-byte length; a connection may carry several. */
    private void answerTcp(Socket client) {
        try (client) {
            client.setSoTimeout(10_000);
            var in = new DataInputStream(client.getInputStream());
            var out = new DataOutputStream(client.getOutputStream());
            while (true) {
                byte[] query = new byte[in.readUnsignedShort()];
                in.readFully(query);
                Optional<byte[]> reply = answers.answer(query, client.getInetAddress(), 65535);
                if (reply.isEmpty()) {
                    return;
                }
                out.writeShort(reply.get().length);
                out.write(reply.get());
                out.flush();
            }
        } catch (IOException e) {
            LOG.debug("a TCP query ended: {}", e.toString());
        }
    }

    @Override
    public void close() {
        udp.close();
        try {
            tcp.close();
        } catch (IOException ignored) {
            // closing a listener cannot fail in a way worth reporting
        }
    }
}
