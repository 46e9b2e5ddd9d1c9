package dev.hearth.bench;

import dev.hearth.client.HearthClient;
import dev.hearth.server.network.Cidr;
import dev.hearth.server.network.Firewall;
import dev.hearth.server.network.NetworkPolicy;
import dev.hearth.server.network.NetworkSettings;
import dev.hearth.server.network.Services;
import dev.hearth.server.sandbox.Slot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What computers' networks cost, in one run: the nftables batch a create adds (put and remove of one
 * computer's rules on a scratch table), create to first exec beside raw runsc (whose sandbox has no
 * rules at all), and a TCP stream from a computer to a test host of the bench's own (a network
 * namespace at 198.51.100.2) beside the same stream from a raw runsc sandbox with no rules and no NAT.
 * Needs root, runsc and nft. Arguments: {@code [rounds=10] [mib=100]}.
 */
public final class NetworkBench {
    private static final String TEST_HOST = "198.51.100.2";
    private static final int SINK = 9000;

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int mib = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        System.out.println("| measurement | raw (median) | hearth (median) | ratio |");
        System.out.println("|---|---|---|---|");
        rulesPerCreate(rounds);
        Path dataDir = Files.createTempDirectory("hearth-bench").resolve("data");
        try (var outside = BenchHost.start(); var hearth = ServedHearth.start(dataDir)) {
            var admin = hearth.admin();
            String ws = admin.create("/workspaces", Map.of("name", "netbench")).path("workspace").path("id").asText();
            var template = create(admin, ws, "template");
            Path bundle = dataDir.resolve("computers").resolve(template).resolve("bundle/config.json");
            createToFirstExec(admin, ws, dataDir, bundle, rounds);
            stream(admin, template, dataDir, bundle, rounds, mib);
            admin.delete("/computers/" + template);
        } finally {
            ComputerBench.TestCleanup.removeAll(dataDir);
        }
    }

    /** One computer's rules put into and removed from a scratch table, as a create and a delete do. */
    private static void rulesPerCreate(int rounds) throws Exception {
        var firewall = new Firewall("hearth_bench", new Services(Services.ADDRESS, 53, 1), NetworkSettings.DEFAULT,
                "hvxbench");
        firewall.reset(List.of(), List.of(), List.of());
        var put = new ArrayList<Double>();
        var remove = new ArrayList<Double>();
        try {
            for (int i = 0; i < rounds * 3; i++) {
                var rule = new Firewall.ComputerRule(new Slot(100 + i), "00benchworkspace000000000000",
                        new NetworkPolicy(true, List.of(Cidr.of("198.51.100.0/24")), List.of(Cidr.of("203.0.113.9"))));
                long t = System.nanoTime();
                firewall.put(rule);
                put.add((System.nanoTime() - t) / 1e6);
                t = System.nanoTime();
                firewall.remove(rule);
                remove.add((System.nanoTime() - t) / 1e6);
            }
        } finally {
            firewall.drop();
        }
        System.out.printf("| rules of one computer: put / remove (nft -f) | - | %.1f ms / %.1f ms | - |%n",
                median(put), median(remove));
    }

    private static void createToFirstExec(HearthClient admin, String ws, Path dataDir, Path bundle, int rounds)
            throws Exception {
        var raw = new ArrayList<Double>();
        var hearth = new ArrayList<Double>();
        for (int i = 0; i < rounds; i++) {
            var sandbox = RawSandbox.prepare(dataDir, bundle, i);
            long t = System.nanoTime();
            sandbox.network();
            sandbox.start();
            sandbox.exec("/bin/true");
            raw.add((System.nanoTime() - t) / 1e6);
            sandbox.delete();
            sandbox.removeNetwork();
            t = System.nanoTime();
            String id = create(admin, ws, "c" + i);
            admin.post("/computers/" + id + "/exec", Map.of("command", List.of("/bin/true")));
            hearth.add((System.nanoTime() - t) / 1e6);
            admin.delete("/computers/" + id);
        }
        row("create to first exec (hearth with its rules, raw with none)", raw, hearth, "ms");
    }

    /** {@code mib} MiB of zeros sent with nc to the test host's sink; MiB/s, higher is better. */
    private static void stream(HearthClient admin, String computer, Path dataDir, Path bundle, int rounds, int mib)
            throws Exception {
        var sandbox = RawSandbox.prepare(dataDir, bundle, 90);
        sandbox.network();
        sandbox.start();
        String send = "dd if=/dev/zero bs=65536 count=" + (mib * 16) + " 2>/dev/null | nc -w 5 " + TEST_HOST + " " + SINK;
        var raw = new ArrayList<Double>();
        var hearth = new ArrayList<Double>();
        try {
            for (int i = 0; i < Math.max(3, rounds / 2); i++) {
                long t = System.nanoTime();
                sandbox.exec("sh", "-c", send);
                raw.add(mib / ((System.nanoTime() - t) / 1e9));
                t = System.nanoTime();
                var r = admin.post("/computers/" + computer + "/exec", Map.of("command", List.of("sh", "-c", send),
                        "timeout_seconds", 300));
                if (r.path("exit_code").asInt() != 0) {
                    throw new IllegalStateException("the stream from the computer failed: " + r);
                }
                hearth.add(mib / ((System.nanoTime() - t) / 1e9));
            }
        } finally {
            sandbox.delete();
            sandbox.removeNetwork();
        }
        row("TCP stream to a test host, " + mib + " MiB (MiB/s; hearth through NAT and its rules)", raw, hearth, "MiB/s");
    }

    private static String create(HearthClient admin, String ws, String name) {
        return admin.create("/workspaces/" + ws + "/computers", Map.of("name", name, "image", "hearth/busybox"))
                .path("computer").path("id").asText();
    }

    private static void row(String what, List<Double> raw, List<Double> hearth, String unit) {
        double r = median(raw);
        double h = median(hearth);
        System.out.printf("| %s | %.1f %s | %.1f %s | %.2f |%n", what, r, unit, h, unit, h / r);
    }

    private static double median(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).sorted().skip(values.size() / 2).findFirst().orElseThrow();
    }

    /**
     * The bench's own outside host: a namespace with a veth to this host, 198.51.100.2, a route back
     * to computers' links (raw sandboxes are not NATed), and an nc sink on {@value #SINK}.
     */
    private record BenchHost(Process sink) implements AutoCloseable {
        static BenchHost start() throws Exception {
            close("hearth-benchhost", "hbn0");
            RawSandbox.run("ip", "netns", "add", "hearth-benchhost");
            RawSandbox.run("ip", "link", "add", "hbn0", "type", "veth", "peer", "name", "hbn1");
            RawSandbox.run("ip", "link", "set", "hbn1", "netns", "hearth-benchhost");
            RawSandbox.run("ip", "addr", "add", "198.51.100.1/24", "dev", "hbn0");
            RawSandbox.run("ip", "link", "set", "hbn0", "up");
            RawSandbox.run("ip", "-n", "hearth-benchhost", "addr", "add", TEST_HOST + "/24", "dev", "hbn1");
            RawSandbox.run("ip", "-n", "hearth-benchhost", "link", "set", "hbn1", "up");
            RawSandbox.run("ip", "-n", "hearth-benchhost", "route", "add", "169.254.0.0/16", "via", "198.51.100.1");
            var sink = new ProcessBuilder("ip", "netns", "exec", "hearth-benchhost", "sh", "-c",
                    "while :; do busybox nc -l -p " + SINK + " > /dev/null; done")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            Thread.sleep(300);
            return new BenchHost(sink);
        }

        private static void close(String ns, String veth) throws Exception {
            new ProcessBuilder("ip", "link", "del", veth).start().waitFor();
            new ProcessBuilder("ip", "netns", "pids", ns).start().waitFor();
            new ProcessBuilder("sh", "-c", "ip netns pids " + ns + " 2>/dev/null | xargs -r kill -9").start().waitFor();
            new ProcessBuilder("ip", "netns", "del", ns).start().waitFor();
        }

        @Override
        public void close() throws Exception {
            sink.destroyForcibly().waitFor();
            close("hearth-benchhost", "hbn0");
        }
    }
}
