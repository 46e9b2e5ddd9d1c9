package dev.hearth.bench;

import dev.hearth.client.HearthClient;
import dev.hearth.server.teardown.Teardown;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the chaos run kills: one {@code hearth serve} on SQLite, or nodes a and b sharing a PostgreSQL
 * store (a throwaway cluster, as {@link NodeHopBench} makes it). A killed node is started again on its
 * own data directory, port and arguments; while it is down, calls to it fail and are not acknowledged.
 */
final class ChaosCluster implements AutoCloseable {
    private final Path root;
    private final List<Node> nodes = new ArrayList<>();
    private final Process store;
    private final Random random = new Random();

    /** One node's directory, port and arguments, and the server that runs it now. */
    private record Node(Path dir, int port, String[] args, AtomicReference<ServedHearth> served,
                        AtomicReference<HearthClient> admin) {
        void start() throws Exception {
            served.set(ServedHearth.start(dir, port, args));
            admin.set(served.get().admin());
        }
    }

    private ChaosCluster(Path root, Process store) {
        this.root = root;
        this.store = store;
    }

    /** {@code count} nodes (1 or 2) under a new directory in /tmp. */
    static ChaosCluster start(int count) throws Exception {
        // Short: a cluster's Unix socket path under it must fit in 107 bytes.
        Path root = Files.createTempDirectory(Path.of("/tmp"), "hc");
        // PostgreSQL runs as the postgres user, which must pass through to its data directories.
        Files.setPosixFilePermissions(root, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        if (count == 1) {
            var one = new ChaosCluster(root, null);
            one.add(root.resolve("d"), ServedHearth.freePort());
            return one;
        }
        int storePort = ServedHearth.freePort();
        var cluster = new ChaosCluster(root, NodeHopBench.storeCluster(root.resolve("pg"), storePort));
        String url = "postgresql://hearth@127.0.0.1:" + storePort + "/postgres";
        cluster.add(root.resolve("a"), ServedHearth.freePort(), "--store", url, "--node", "a");
        // b as an operator joins it (a's keys, its own key file made out to its port), restarted as itself from here.
        var b = NodeHopBench.joinNode(root.resolve("a"), root.resolve("b"), url, "b");
        int bPort = Integer.parseInt(b.baseUrl().replaceAll(".*:(\\d+)/v1$", "$1"));
        cluster.nodes.add(new Node(root.resolve("b"), bPort, new String[] {"--store", url, "--node", "b"},
                new AtomicReference<>(b), new AtomicReference<>(b.admin())));
        return cluster;
    }

    private void add(Path dir, int port, String... args) throws Exception {
        var node = new Node(dir, port, args, new AtomicReference<>(), new AtomicReference<>());
        node.start();
        nodes.add(node);
    }

    int size() {
        return nodes.size();
    }

    /** The admin's client of a node picked at random (the one that is up now, if only one runs). */
    HearthClient anyAdmin() {
        return nodes.get(random.nextInt(nodes.size())).admin().get();
    }

    /** The first node's admin client, for the checks after the run. */
    HearthClient firstAdmin() {
        return nodes.getFirst().admin().get();
    }

    /** Kills a node picked at random with SIGKILL, waits {@code downMillis}, starts it again; answers its name. */
    String killOne(long downMillis) throws Exception {
        var node = nodes.get(random.nextInt(nodes.size()));
        node.served().get().kill();
        Thread.sleep(downMillis);
        node.start();
        return node.dir().getFileName().toString();
    }

    List<Path> dataDirs() {
        return nodes.stream().map(Node::dir).toList();
    }

    /** What the teardowns after a run found: objects taken down, then what a second teardown still found. */
    record Teardowns(int taken, int left) {
    }

    /** Kills every node, takes each data directory down twice, and answers what each teardown found. */
    Teardowns teardown() throws Exception {
        int taken = 0;
        int left = 0;
        for (var node : nodes) {
            node.served().get().kill();
        }
        for (var node : nodes) {
            taken += Teardown.run(node.dir()).total();
        }
        for (var node : nodes) {
            left += Teardown.run(node.dir()).total();
        }
        return new Teardowns(taken, left);
    }

    @Override
    public void close() throws Exception {
        if (store != null) {
            store.destroy();
            store.waitFor();
        }
        dev.hearth.fs.Disk.deleteTree(root);
    }
}
