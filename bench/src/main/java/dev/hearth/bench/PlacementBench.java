package dev.hearth.bench;

import dev.hearth.client.HearthClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Placement over nodes: three nodes (each {@code hearth serve} in its own JVM, on this one machine)
 * share a PostgreSQL store, and {@code creates} computers are created at once by {@code clients}
 * clients, each sending to the nodes in turn. Reports the wall time, each create's time, where they
 * went and each node's memory given against its budget; then deletes them. Needs root, runsc and
 * PostgreSQL. Arguments: {@code [creates=100] [clients=10] [memory_mb=128]}.
 */
public final class PlacementBench {
    public static void main(String[] args) throws Exception {
        int creates = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int memoryMb = args.length > 2 ? Integer.parseInt(args[2]) : 128;
        Path root = Files.createTempDirectory("h");
        Files.setPosixFilePermissions(root, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        int storePort = ServedHearth.freePort();
        Process store = NodeHopBench.storeCluster(root.resolve("pg"), storePort);
        String url = "postgresql://hearth@127.0.0.1:" + storePort + "/postgres";
        var names = List.of("a", "b", "c");
        var nodes = new ArrayList<ServedHearth>();
        try {
            nodes.add(ServedHearth.start(root.resolve("a"), "--store", url, "--node", "a"));
            for (String name : names.subList(1, names.size())) {
                nodes.add(NodeHopBench.joinNode(root.resolve("a"), root.resolve(name), url, name));
            }
            measure(nodes, creates, clients, memoryMb);
        } finally {
            for (var node : nodes) {
                node.close();
            }
            for (String name : names.reversed()) {
                ComputerBench.TestCleanup.teardown(root.resolve(name));
            }
            store.destroy();
            store.waitFor();
            ComputerBench.TestCleanup.removeAll(root.resolve("a"));
        }
    }

    private record Made(String id, String node, double millis, int status, String error) {
    }

    private static void measure(List<ServedHearth> nodes, int creates, int clients, int memoryMb) throws Exception {
        var admins = new ArrayList<HearthClient>();
        for (var node : nodes) {
            admins.add(node.admin());
        }
        String ws = admins.getFirst().create("/workspaces", Map.of("name", "placed")).path("workspace").path("id").asText();
        var made = Collections.synchronizedList(new ArrayList<Made>());
        long start = System.nanoTime();
        try (var pool = Executors.newFixedThreadPool(clients)) {
            var futures = new ArrayList<Future<?>>();
            for (int i = 0; i < creates; i++) {
                var admin = admins.get(i % admins.size());
                String name = "p" + i;
                futures.add(pool.submit(() -> {
                    long t = System.nanoTime();
                    var r = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", name,
                            "image", "hearth/busybox", "resources", Map.of("memory_mb", memoryMb)),
                            Map.of("Idempotency-Key", name));
                    var c = r.body().path("computer");
                    made.add(new Made(c.path("id").asText(null), c.path("node").asText("-"), (System.nanoTime() - t) / 1e6,
                            r.status(), r.body().path("error").path("message").asText("")));
                    return null;
                }));
            }
            for (var f : futures) {
                f.get();
            }
        }
        double wall = (System.nanoTime() - start) / 1e6;
        report(made, wall, creates, clients, memoryMb);
        long deleting = System.nanoTime();
        for (var m : made) {
            if (m.id() != null) {
                admins.getFirst().send("DELETE", "/computers/" + m.id(), null, Map.of());
            }
        }
        System.out.printf("deleted them all through node a in %.1f s%n", (System.nanoTime() - deleting) / 1e9);
    }

    private static void report(List<Made> made, double wall, int creates, int clients, int memoryMb) {
        var perNode = new TreeMap<String, Integer>();
        var times = new ArrayList<Double>();
        int failed = 0;
        for (var m : made) {
            if (m.status() == 201) {
                perNode.merge(m.node(), 1, Integer::sum);
                times.add(m.millis());
            } else {
                failed++;
                System.out.println("create refused: " + m.status() + " " + m.error());
            }
        }
        Collections.sort(times);
        System.out.printf("%d creates of %d MiB computers by %d clients over 3 nodes: %.1f s wall, %d failed%n",
                creates, memoryMb, clients, wall / 1000, failed);
        System.out.printf("create median %.0f ms, p90 %.0f ms, max %.0f ms%n", pct(times, 50), pct(times, 90),
                times.isEmpty() ? 0 : times.getLast());
        System.out.println("| node | computers | memory given (MiB) |");
        System.out.println("|---|---|---|");
        perNode.forEach((node, n) -> System.out.printf("| %s | %d | %d |%n", node, n, n * memoryMb));
    }

    private static double pct(List<Double> sorted, int p) {
        return sorted.isEmpty() ? 0 : sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100));
    }
}
