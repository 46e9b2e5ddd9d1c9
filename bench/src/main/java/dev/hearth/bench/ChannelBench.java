package dev.hearth.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.Json;
import dev.hearth.server.agent.AgentSecrets;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The two channels issue 16 asked to measure before choosing: HTTP round trips to a computer's agent
 * over TCP on the computer's address (what Hearth uses) and over a Unix socket the agent makes in a
 * bind-mounted host directory ({@code runsc --host-uds=create}). One raw sandbox from a Hearth
 * computer's bundle runs the same agent and answers both; the same client code asks both,
 * interleaved, keeping the connection and opening one per request. Needs root and runsc.
 * Arguments: [requests=2000].
 */
public final class ChannelBench {
    private static final String SOCKET_DIR = "/run/hearth-channel";
    private static final int MIB = 1 << 20;

    public static void main(String[] args) throws Exception {
        int requests = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        Path dataDir = Files.createTempDirectory("hearth-channel-bench").resolve("data");
        RawSandbox raw = null;
        try (var hearth = ServedHearth.start(dataDir)) {
            var admin = hearth.admin();
            String ws = admin.create("/workspaces", Map.of("name", "bench")).path("workspace").path("id").asText();
            String template = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "template",
                    "image", "hearth/busybox")).path("computer").path("id").asText();
            String secret = new AgentSecrets(dataDir.resolve("agent-key")).of(template);
            Path bundle = dataDir.resolve("computers").resolve(template).resolve("bundle/config.json");
            Path channel = Files.createDirectories(dataDir.resolve("channel"));
            raw = RawSandbox.prepare(dataDir, bundle, 1, spec -> withSocketDir(spec, channel))
                    .withRunscFlags(List.of("--host-uds=create"));
            raw.network();
            raw.start();
            var tcp = new InetSocketAddress(raw.guest, 49983);
            var uds = UnixDomainSocketAddress.of(channel.resolve("agent.sock"));
            await(tcp, uds, secret);
            var steps = new LinkedHashMap<String, Client>();
            steps.put("TCP, connection kept", new Client(tcp, secret, true));
            steps.put("TCP, connection per request", new Client(tcp, secret, false));
            steps.put("Unix socket (--host-uds=create), connection kept", new Client(uds, secret, true));
            steps.put("Unix socket (--host-uds=create), connection per request", new Client(uds, secret, false));
            var times = new LinkedHashMap<String, List<Double>>();
            for (int i = 0; i < requests + requests / 5; i++) {
                for (var step : steps.entrySet()) {
                    long t = System.nanoTime();
                    step.getValue().health();
                    if (i >= requests / 5) {
                        times.computeIfAbsent(step.getKey(), k -> new ArrayList<>()).add((System.nanoTime() - t) / 1e6);
                    }
                }
            }
            System.out.println("| GET /health of the agent | median ms | p99 ms |");
            System.out.println("|---|---|---|");
            times.forEach((step, values) -> System.out.printf("| %s | %.3f | %.3f |%n", step,
                    percentile(values, 50), percentile(values, 99)));
            // Bulk: the same file out over each channel (from /data, a host directory, so the disk is the same).
            Files.write(raw.data().resolve("blob.bin"), new byte[MIB * 100]);
            System.out.println();
            System.out.println("| GET /files of 100 MiB | MiB/s, best of 3 |");
            System.out.println("|---|---|");
            for (var way : Map.of("TCP", tcp, "Unix socket (--host-uds=create)", uds).entrySet()) {
                double best = 0;
                for (int round = 0; round < 3; round++) {
                    best = Math.max(best, download(way.getValue(), secret, "/data/blob.bin"));
                }
                System.out.printf("| %s | %.0f |%n", way.getKey(), best);
            }
            System.out.printf("%nload average %s%n", Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } finally {
            if (raw != null) {
                raw.delete();
                raw.removeNetwork();
            }
            ComputerBench.TestCleanup.removeAll(dataDir);
        }
    }

    /** Bind-mounts {@code channel} at {@link #SOCKET_DIR} and has the agent answer on a socket there too. */
    private static void withSocketDir(ObjectNode spec, Path channel) {
        var mount = Json.mapper().createObjectNode().put("destination", SOCKET_DIR).put("type", "bind")
                .put("source", channel.toString());
        mount.putArray("options").add("rbind").add("rw");
        ((ArrayNode) spec.path("mounts")).add(mount);
        ((ArrayNode) spec.path("process").path("env")).add("HEARTH_AGENT_SOCKET=" + SOCKET_DIR + "/agent.sock");
    }

    private static void await(SocketAddress tcp, SocketAddress uds, String secret) throws Exception {
        for (int i = 0; ; i++) {
            try {
                new Client(tcp, secret, false).health();
                new Client(uds, secret, false).health();
                return;
            } catch (IOException notYet) {
                if (i > 500) {
                    throw notYet;
                }
                Thread.sleep(20);
            }
        }
    }

    /** Reads a file through the agent's files route; answers MiB/s. */
    private static double download(SocketAddress address, String secret, String path) throws IOException {
        long t0 = System.nanoTime();
        long body = 0;
        try (var channel = SocketChannel.open(address)) {
            channel.write(ByteBuffer.wrap(("GET /files?path=" + path + " HTTP/1.1\r\nHost: agent\r\nAuthorization: Bearer "
                    + secret + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
            var buffer = ByteBuffer.allocate(256 * 1024);
            int headEnd = -1;
            while (channel.read(buffer) >= 0) {
                if (headEnd < 0) {
                    String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.ISO_8859_1);
                    headEnd = text.indexOf("\r\n\r\n");
                    if (headEnd >= 0) {
                        body += buffer.position() - headEnd - 4;
                        buffer.clear();
                    }
                } else {
                    body += buffer.position();
                    buffer.clear();
                }
            }
        }
        if (body < 100L * MIB) {
            throw new IOException("the file came short: " + body + " bytes");
        }
        return body / (double) MIB / ((System.nanoTime() - t0) / 1e9);
    }

    private static double percentile(List<Double> values, int p) {
        var sorted = values.stream().sorted().toList();
        return sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100));
    }

    /** GET /health over one kind of socket, written and read by hand so both channels get the same client. */
    private static final class Client {
        private final SocketAddress address;
        private final byte[] request;
        private final boolean keep;
        private SocketChannel channel;
        private final ByteBuffer buffer = ByteBuffer.allocate(16 * 1024);

        Client(SocketAddress address, String secret, boolean keep) {
            this.address = address;
            this.keep = keep;
            this.request = ("GET /health HTTP/1.1\r\nHost: agent\r\nAuthorization: Bearer " + secret
                    + (keep ? "" : "\r\nConnection: close") + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        }

        void health() throws IOException {
            if (channel == null) {
                channel = SocketChannel.open(address);
            }
            channel.write(ByteBuffer.wrap(request));
            buffer.clear();
            while (!complete()) {
                if (channel.read(buffer) < 0) {
                    throw new IOException("the agent closed the connection");
                }
            }
            if (!keep) {
                channel.close();
                channel = null;
            }
        }

        /** Whether the buffer holds a whole answer: its head and Content-Length bytes of body. */
        private boolean complete() throws IOException {
            String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII);
            int end = text.indexOf("\r\n\r\n");
            if (end < 0) {
                return false;
            }
            if (!text.startsWith("HTTP/1.1 200")) {
                throw new IOException("the agent answered " + text.lines().findFirst().orElse(""));
            }
            int at = text.toLowerCase().indexOf("content-length: ");
            int length = Integer.parseInt(text.substring(at + 16, text.indexOf("\r\n", at)).strip());
            return buffer.position() >= end + 4 + length;
        }
    }
}
