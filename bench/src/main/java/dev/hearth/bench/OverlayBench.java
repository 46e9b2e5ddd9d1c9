package dev.hearth.bench;

import dev.hearth.client.HearthClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * What the overlay between nodes costs a computer talking to another. Two nodes, each a
 * {@code hearth serve} in a network namespace of its own (203.0.113.1 and .2 on a bridge whose host
 * side, .254, serves a throwaway PostgreSQL store), so that their computers' packets cross a real
 * network in VXLAN. Three computers of one workspace: x and y on node a, z on b; y and z serve a
 * file from /data over HTTP. From x: small GETs (one {@code wget} process fetching a 100-byte file
 * {@code gets} times, a new connection each: the time per request) and downloads of a large file
 * from y and from z, beside the same inside y itself (loopback: the tools' and gVisor's floor).
 * Needs root, runsc and PostgreSQL. Arguments: {@code [rounds=5] [mib=200] [gets=200]}.
 */
public final class OverlayBench {
    private static final String NET = "203.0.113.";

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int mib = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int gets = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        String tag = HexFormat.of().toHexDigits(new Random().nextInt(), 4);
        Path root = Files.createTempDirectory("h");
        Files.setPosixFilePermissions(root, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        var hosts = new Hosts(tag);
        int storePort = ServedHearth.freePort();
        Process store = null;
        ServedHearth a = null;
        ServedHearth b = null;
        try {
            hosts.up();
            store = NodeHopBench.storeCluster(root.resolve("pg"), storePort, "127.0.0.1," + NET + "254", NET + "0/24");
            String url = "postgresql://hearth@" + NET + "254:" + storePort + "/postgres";
            a = ServedHearth.startIn(hosts.netns("a"), NET + "1", root.resolve("a"), "--store", url, "--node", "a");
            Path bDir = NodeHopBench.replicaDir(root.resolve("a"), root.resolve("b"), "http://" + NET + "2:7300/v1");
            b = ServedHearth.startIn(hosts.netns("b"), NET + "2", bDir, "--store", url, "--node", "b");
            measure(a.admin(), url.replace(NET + "254", "127.0.0.1"), rounds, mib, gets);
        } catch (Exception e) {
            for (String node : List.of("a", "b")) {
                System.err.println("--- " + node + ".log, warnings and errors:");
                Files.readString(root.resolve(node + ".log")).lines().filter(l -> !l.contains(":INFO :")).limit(60)
                        .forEach(System.err::println);
            }
            throw e;
        } finally {
            for (var node : new ServedHearth[] {b, a}) {
                if (node != null) {
                    node.close();
                }
            }
            ComputerBench.TestCleanup.teardown(root.resolve("b"));
            ComputerBench.TestCleanup.teardown(root.resolve("a"));
            hosts.close();
            if (store != null) {
                store.destroy();
                store.waitFor();
            }
            dev.hearth.fs.Disk.deleteTree(root);
        }
    }

    private static void measure(HearthClient admin, String store, int rounds, int mib, int gets) throws Exception {
        String ws = admin.create("/workspaces", Map.of("name", "overlay")).path("workspace").path("id").asText();
        String x = on(store, "a", () -> computer(admin, ws, "x"));
        String y = on(store, "a", () -> computer(admin, ws, "y"));
        String z = on(store, "b", () -> computer(admin, ws, "z"));
        for (String server : List.of(y, z)) {
            timed(admin, server, "dd if=/dev/urandom of=/data/blob bs=1M count=" + mib + " 2>/dev/null && "
                    + "head -c 100 /dev/urandom > /data/small");
        }
        System.out.println("| from x (node a) | small GET, ms each (median) | download MiB/s (median) |");
        System.out.println("|---|---|---|");
        System.out.printf("| inside y itself (loopback) | %.2f | %.0f |%n", gets(admin, y, "127.0.0.1", rounds, gets),
                download(admin, y, "127.0.0.1", rounds, mib));
        System.out.printf("| to y, same node | %.2f | %.0f |%n", gets(admin, x, "y.internal", rounds, gets),
                download(admin, x, "y.internal", rounds, mib));
        System.out.printf("| to z, other node (VXLAN) | %.2f | %.0f |%n", gets(admin, x, "z.internal", rounds, gets),
                download(admin, x, "z.internal", rounds, mib));
        System.out.printf("%nload average %s%n", Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        for (String id : List.of(x, y, z)) {
            admin.delete("/computers/" + id);
        }
    }

    /** The median over {@code rounds} runs of the time per request of one wget fetching /small {@code count} times. */
    private static double gets(HearthClient admin, String from, String to, int rounds, int count) {
        var each = new ArrayList<Double>();
        String script = "set --; i=0; while [ $i -lt " + count + " ]; do set -- \"$@\" http://" + to
                + ":8080/small; i=$((i+1)); done; wget -q -O /dev/null \"$@\"";
        for (int i = 0; i < rounds; i++) {
            each.add(timed(admin, from, script) / count);
        }
        return Interleaved.percentile(each, 50);
    }

    /** An exec's own duration, in ms (a failed exec throws). */
    private static double timed(HearthClient admin, String id, String script) {
        var r = admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c", script),
                "timeout_seconds", 300));
        if (r.path("exit_code").asInt() != 0) {
            throw new IllegalStateException(script + ": " + r);
        }
        return r.path("duration_ms").asDouble();
    }

    /** The median speed of {@code rounds} downloads of /data/blob, by the exec's own duration. */
    private static double download(HearthClient admin, String from, String to, int rounds, int mib) {
        var speeds = new ArrayList<Double>();
        for (int i = 0; i < rounds + 1; i++) {
            double ms = timed(admin, from, "wget -q -O /dev/null http://" + to + ":8080/blob");
            if (i > 0) { // the first warms the server's page cache
                speeds.add(mib / (ms / 1000));
            }
        }
        return Interleaved.percentile(speeds, 50);
    }

    private static String computer(HearthClient admin, String ws, String name) {
        return admin.create("/workspaces/" + ws + "/computers", Map.of("name", name, "image", "hearth/busybox",
                "command", List.of("httpd", "-f", "-p", "8080", "-h", "/data"))).path("computer").path("id").asText();
    }

    private interface Make {
        String make() throws Exception;
    }

    /** What {@code make} creates, placed on {@code node}: the other drains meanwhile. */
    private static String on(String store, String node, Make make) throws Exception {
        String other = node.equals("a") ? "b" : "a";
        DrainMove.cli("admin", "nodes", "drain", other, "--store", store);
        try {
            return make.make();
        } finally {
            DrainMove.cli("admin", "nodes", "undrain", other, "--store", store);
        }
    }

    /** The bridge and the two nodes' namespaces, each behind a veth on it. */
    private record Hosts(String tag) implements AutoCloseable {
        String netns(String node) {
            return "ho" + tag + node;
        }

        void up() throws Exception {
            String bridge = "hob" + tag;
            run("ip link add " + bridge + " type bridge", "ip addr add " + NET + "254/24 dev " + bridge,
                    "ip link set " + bridge + " up");
            int i = 1;
            for (String node : List.of("a", "b")) {
                String ns = netns(node);
                String outside = "ho" + tag + node + "0";
                run("ip netns add " + ns, "ip link add " + outside + " type veth peer name eth1 netns " + ns,
                        "ip link set " + outside + " master " + bridge, "ip link set " + outside + " up",
                        "ip -n " + ns + " link set lo up", "ip -n " + ns + " addr add " + NET + i++ + "/24 dev eth1",
                        "ip -n " + ns + " link set eth1 up", "ip -n " + ns + " route add default via " + NET + "254");
            }
        }

        @Override
        public void close() throws Exception {
            for (String node : List.of("a", "b")) {
                new ProcessBuilder("ip", "netns", "del", netns(node)).start().waitFor();
            }
            new ProcessBuilder("ip", "link", "del", "hob" + tag).start().waitFor();
        }

        private static void run(String... commands) throws Exception {
            for (String c : commands) {
                var p = new ProcessBuilder("sh", "-c", c).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes());
                if (p.waitFor() != 0) {
                    throw new IllegalStateException(c + ": " + out);
                }
            }
        }
    }
}
