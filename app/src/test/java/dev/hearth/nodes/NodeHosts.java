package dev.hearth.nodes;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.Json;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.support.ChildServer;
import dev.hearth.support.PostgresCluster;
import dev.hearth.support.TestServer;
import dev.hearth.cli.Cli;
import dev.hearth.server.nodes.Node;
import dev.hearth.server.nodes.NodeStore;
import dev.hearth.server.store.Store;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Nodes as hosts of their own: each {@code hearth serve} a child process in a network namespace
 * the test makes ({@code 203.0.113.N}, TEST-NET-3, behind a veth on a bridge whose host side is
 * {@code 203.0.113.254}), every listener on its own address and Hearth's default ports, sharing a
 * throwaway PostgreSQL store the host serves on the bridge. What crosses between nodes crosses a
 * real network; nothing leaves the bridge.
 */
final class NodeHosts implements AutoCloseable {
    static final String NET = "203.0.113.";
    static final String HOST_SIDE = NET + "254";
    static final int API_PORT = 7300;
    private static final long START_SECONDS = 120;

    /** One node: its name, address, data directory and process. */
    static final class Host {
        final String name;
        final String address;
        final Path dataDir;
        Process process;

        Host(String name, String address, Path dataDir) {
            this.name = name;
            this.address = address;
            this.dataDir = dataDir;
        }

        String baseUrl() {
            return "http://" + address + ":" + API_PORT + "/v1";
        }

        /** The admin, through this node's API (a key file's token is for the node that issued it). */
        HearthClient admin() {
            return new HearthClient(baseUrl(), KeyFileTokens.read(dataDir.resolve("admin-key.json")));
        }
    }

    private final String tag = HexFormat.of().toHexDigits(new Random().nextInt(), 4);
    private final String bridge = "hnb" + tag;
    final PostgresCluster cluster;
    // The store as the nodes reach it (on the bridge), and as this host does.
    final String store;
    private final String localStore;
    final Map<String, Host> hosts = new LinkedHashMap<>();

    private final Optional<Long> memoryMb;

    private NodeHosts(List<String> names, Optional<Long> memoryMb) throws Exception {
        this.memoryMb = memoryMb;
        sh("ip link add " + bridge + " type bridge", "ip addr add " + HOST_SIDE + "/24 dev " + bridge,
                "ip link set " + bridge + " up");
        cluster = PostgresCluster.startOn(HOST_SIDE, NET + "0/24");
        localStore = cluster.createDatabase("hearth_hosts");
        store = localStore.replace("127.0.0.1", HOST_SIDE);
        Path first = null;
        for (int i = 0; i < names.size(); i++) {
            var host = new Host(names.get(i), NET + (i + 1), Files.createTempDirectory("hearth-node"));
            network(host, i);
            if (first != null) {
                shareKeys(first, host);
            }
            start(host);
            first = first == null ? host.dataDir : first;
            hosts.put(host.name, host);
        }
    }

    /**
     * Nodes named {@code names}, a on 203.0.113.1, b on .2 and so on, each giving its awake computers
     * {@code memoryMb} (the host's if empty); the first makes the keys the others copy.
     */
    static NodeHosts start(Optional<Long> memoryMb, String... names) throws Exception {
        return new NodeHosts(List.of(names), memoryMb);
    }

    Host get(String name) {
        return hosts.get(name);
    }

    /** {@code hearth admin nodes drain|undrain NAME}, as an operator runs it against the store. */
    void drain(String name, boolean drain) throws Exception {
        var out = new ByteArrayOutputStream();
        int code = Cli.run(new String[] {"admin", "nodes", drain ? "drain" : "undrain", name, "--store", localStore},
                new Cli.Context(Map.of(), System.in, new PrintStream(out, true), System.err,
                        hosts.values().iterator().next().dataDir.resolveSibling("cli-" + tag)));
        if (code != 0) {
            throw new AssertionError("admin nodes " + (drain ? "drain " : "undrain ") + name + ": " + out);
        }
    }

    /** Every node as the store has it now, with what it hosts. */
    List<Node> nodes() throws Exception {
        try (var opened = Store.open(localStore, hosts.values().iterator().next().dataDir.getParent())) {
            return opened.jdbi().withHandle(h -> new NodeStore().all(h, Instant.now()));
        }
    }

    /** What {@code work} makes, placed on node {@code name}: every other node drains while it runs. */
    <T> T on(String name, Callable<T> work) throws Exception {
        var others = hosts.keySet().stream().filter(n -> !n.equals(name)).toList();
        for (String other : others) {
            drain(other, true);
        }
        try {
            return work.call();
        } finally {
            for (String other : others) {
                drain(other, false);
            }
        }
    }

    private String netns(Host host) {
        return "hn" + tag + "-" + host.name;
    }

    private void network(Host host, int i) throws Exception {
        String ns = netns(host);
        String outside = "hn" + tag + host.name;
        sh("ip netns add " + ns, "ip link add " + outside + " type veth peer name eth1 netns " + ns,
                "ip link set " + outside + " master " + bridge, "ip link set " + outside + " up",
                "ip -n " + ns + " link set lo up", "ip -n " + ns + " addr add " + host.address + "/24 dev eth1",
                "ip -n " + ns + " link set eth1 up", "ip -n " + ns + " route add default via " + HOST_SIDE);
    }

    /** What nodes of one store share: the keys, and the admin's key file made out to this node's URL. */
    private static void shareKeys(Path from, Host to) throws Exception {
        for (String shared : List.of("signing-keys.json", "encryption-keys.json")) {
            Files.copy(from.resolve(shared), to.dataDir.resolve(shared));
        }
        var key = (ObjectNode) Json.mapper().readTree(from.resolve("admin-key.json").toFile());
        key.put("audience", to.baseUrl()).put("token_url", to.baseUrl() + "/auth/token");
        Files.writeString(to.dataDir.resolve("admin-key.json"), key.toString());
    }

    /** Starts (or starts again) a node's hearth serve in its namespace, and waits until it serves. */
    void start(Host host) throws Exception {
        var command = new ArrayList<>(List.of("nsenter", "--net=/var/run/netns/" + netns(host),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--enable-native-access=ALL-UNNAMED",
                "-Dorg.sqlite.tmpdir=" + host.dataDir.getParent(), "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                ChildServer.class.getName(), host.dataDir.toString(), String.valueOf(API_PORT), "node", store,
                host.name, host.address));
        memoryMb.ifPresent(mb -> command.add(String.valueOf(mb)));
        Path log = host.dataDir.resolveSibling(host.dataDir.getFileName() + ".log");
        host.process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        var ready = new CompletableFuture<String>();
        var out = new BufferedReader(new InputStreamReader(host.process.getInputStream()));
        Thread.ofVirtual().start(() -> {
            try {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith("node ")) {
                        ready.complete(line);
                    }
                }
            } catch (IOException ignored) {
                // the node ended
            }
            ready.completeExceptionally(new AssertionError("node " + host.name + " ended before serving: "
                    + tail(log)));
        });
        ready.get(START_SECONDS, TimeUnit.SECONDS);
    }

    /** Stops a node as an operator would (SIGTERM: its lease is released, its computers keep running). */
    void stop(Host host) throws Exception {
        host.process.destroy();
        if (!host.process.waitFor(60, TimeUnit.SECONDS)) {
            host.process.destroyForcibly().waitFor();
        }
    }

    /** Kills a node's process with SIGKILL: what a crash or a power cut leaves. */
    void kill(Host host) throws Exception {
        host.process.destroyForcibly().waitFor();
    }

    private static String tail(Path log) {
        try {
            return String.join("\n", Files.readAllLines(log).stream().filter(l -> !l.contains(":INFO :"))
                    .skip(Math.max(0, Files.readAllLines(log).size() - 30)).toList());
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static void sh(String... commands) throws Exception {
        for (String c : commands) {
            var p = new ProcessBuilder("sh", "-c", c).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0) {
                throw new IllegalStateException(c + ": " + out);
            }
        }
    }

    @Override
    public void close() throws Exception {
        for (var host : hosts.values()) {
            if (host.process != null && host.process.isAlive()) {
                stop(host);
            }
            TestServer.tearDown(host.dataDir);
            new ProcessBuilder("ip", "netns", "del", netns(host)).start().waitFor();
        }
        new ProcessBuilder("ip", "link", "del", bridge).start().waitFor();
        cluster.close();
        for (var host : hosts.values()) {
            Files.deleteIfExists(host.dataDir.resolveSibling(host.dataDir.getFileName() + ".log"));
            dev.hearth.fs.Disk.deleteTree(host.dataDir);
        }
    }
}
