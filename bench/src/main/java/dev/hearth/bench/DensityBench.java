package dev.hearth.bench;

import dev.hearth.client.HearthClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * How many idle computers one machine holds while the API stays quick: hearth/busybox computers
 * (64 MiB each) made in steps up to the target; at each step, once they have settled (frozen while
 * idle, unless {@code freeze=false}), the API's latency over GETs of a computer and pages of the
 * list beside its floor in the same run ({@code GET /v1/health}), after 10 s at rest in which the
 * share of the host's CPU that was busy is taken, with the memory the computers took and the load
 * average; then 30 execs in
 * computers picked at random, each of which thaws one. {@code hearth serve} runs in its own JVM. Needs root and
 * runsc. Arguments: {@code [target=500] [step=100] [requests=300] [freeze=true]}.
 */
public final class DensityBench {
    private static final String TRUE = "{\"command\": [\"/bin/true\"]}";
    private static final int EXECS = 30;
    private static final long REST_MILLIS = 10_000;

    public static void main(String[] args) throws Exception {
        int target = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        int step = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int requests = args.length > 2 ? Integer.parseInt(args[2]) : 300;
        boolean freeze = args.length <= 3 || Boolean.parseBoolean(args[3]);
        // Short: PostgreSQL's socket paths must fit (the databases are not used, but they warn).
        Path dataDir = Files.createTempDirectory(Path.of("/tmp"), "hd").resolve("data");
        // Placement admits computers while their memory limits fit the node (the host's memory by
        // default), frozen or not; 500 x 64 MiB is more than this host's 24 GiB, so the run overcommits
        // as an operator would (--node-memory-mb) when the target asks for more.
        long nodeMb = Math.max(memTotalKb() / 1024, target * 64L + 1024);
        System.out.printf("--node-memory-mb %d (the host has %d MiB)%n%n", nodeMb, memTotalKb() / 1024);
        // The rate limit (100 a second by default) is not what is measured, and the settling polls the list.
        try (var hearth = ServedHearth.start(dataDir, "--rate-limit", "100000", "--node-memory-mb",
                String.valueOf(nodeMb))) {
            var admin = hearth.admin();
            String ws = admin.create("/workspaces", Map.of("name", "density")).path("workspace").path("id").asText();
            long memoryBefore = memAvailableKb();
            var ids = new ArrayList<String>();
            System.out.println("| computers | frozen | made in (s) | settled in (s) | host CPU busy at rest | MiB each | load | "
                    + "health p50/p99 (ms) | GET and list p50/p99 (ms) | exec (thaws) p50/p99 (ms) |");
            System.out.println("|---|---|---|---|---|---|---|---|---|---|");
            while (ids.size() < target) {
                long t = System.nanoTime();
                int goal = Math.min(target, ids.size() + step);
                while (ids.size() < goal) {
                    ids.add(admin.create("/workspaces/" + ws + "/computers", Map.of("name", "idle" + ids.size(),
                            "image", "hearth/busybox", "resources", Map.of("memory_mb", 64),
                            "freeze_when_idle", freeze)).path("computer").path("id").asText());
                }
                double made = (System.nanoTime() - t) / 1e9;
                t = System.nanoTime();
                long frozen = settle(admin, ws, ids, freeze);
                double settled = (System.nanoTime() - t) / 1e9;
                // A connection of its own each step: the server closes one left idle through a settling.
                try (var api = hearth.blockingAdmin()) {
                    measure(api, ws, ids, requests, made, settled, frozen, (memoryBefore - memAvailableKb()) / 1024.0);
                }
            }
            // No delete one by one: the teardown below takes every sandbox down at once.
        } finally {
            ComputerBench.TestCleanup.removeAll(dataDir);
        }
    }

    /** Until every computer is frozen while idle (or, not freezing, 15 s for them to go quiet); how many are frozen. */
    private static long settle(HearthClient admin, String ws, List<String> ids, boolean freeze) throws Exception {
        if (!freeze) {
            Thread.sleep(15_000);
            return 0;
        }
        long deadline = System.nanoTime() + 600_000_000_000L;
        long frozen = 0;
        while (System.nanoTime() < deadline) {
            frozen = frozen(admin, ws);
            if (frozen == ids.size()) {
                break;
            }
            Thread.sleep(1000);
        }
        return frozen;
    }

    /** How many of the workspace's computers are frozen while idle, read a page of 100 at a time. */
    private static long frozen(HearthClient admin, String ws) {
        long frozen = 0;
        String cursor = null;
        do {
            var page = admin.get("/workspaces/" + ws + "/computers?limit=100" + (cursor == null ? "" : "&cursor=" + cursor));
            for (var c : page.path("computers")) {
                frozen += c.path("frozen_since").isNull() ? 0 : 1;
            }
            cursor = page.path("has_more").asBoolean() ? page.path("next_cursor").asText() : null;
        } while (cursor != null);
        return frozen;
    }

    /**
     * The host's CPU while the computers rest (10 s, nothing asked); then the API: GETs of one at
     * random and pages of the list beside the floor ({@code GET /health}); then execs in a few
     * computers picked at random, each of which thaws one.
     */
    private static void measure(BlockingHttp api, String ws, List<String> ids, int requests, double made,
                                double settled, long frozen, double mibUsed) throws Exception {
        var random = new Random(ids.size());
        var health = new double[requests];
        var reads = new double[requests];
        long[] cpuBefore = cpu();
        Thread.sleep(REST_MILLIS);
        long[] cpuAfter = cpu();
        double rest = 100.0 * (cpuAfter[0] - cpuBefore[0]) / Math.max(1, cpuAfter[1] - cpuBefore[1]);
        for (int i = 0; i < requests; i++) {
            health[i] = timed(() -> api.send("GET", "/health", null));
            String id = ids.get(random.nextInt(ids.size()));
            reads[i] = i % 2 == 0 ? timed(() -> api.send("GET", "/computers/" + id, null))
                    : timed(() -> api.send("GET", "/workspaces/" + ws + "/computers?limit=50", null));
        }
        var exec = new double[Math.min(EXECS, ids.size())];
        for (int i = 0; i < exec.length; i++) {
            String id = ids.get(random.nextInt(ids.size()));
            exec[i] = timed(() -> api.send("POST", "/computers/" + id + "/exec", TRUE));
        }
        System.out.printf("| %d | %d | %.0f | %.0f | %.0f %% | %.1f | %s | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f |%n",
                ids.size(), frozen, made, settled, rest, mibUsed / ids.size(),
                Files.readString(Path.of("/proc/loadavg")).split(" ")[0], pct(health, 50), pct(health, 99),
                pct(reads, 50), pct(reads, 99), pct(exec, 50), pct(exec, 99));
    }

    private interface Call {
        int send() throws Exception;
    }

    private static double timed(Call call) throws Exception {
        long t = System.nanoTime();
        int status = call.send();
        if (status >= 300) {
            throw new IllegalStateException("the API answered " + status);
        }
        return (System.nanoTime() - t) / 1e6;
    }

    private static double pct(double[] values, int percentile) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v[Math.min(v.length - 1, (int) Math.ceil(percentile / 100.0 * v.length) - 1)];
    }

    /** Busy and total jiffies of the host's CPUs so far (/proc/stat). */
    private static long[] cpu() throws Exception {
        String[] f = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
        long total = 0;
        for (int i = 1; i < f.length; i++) {
            total += Long.parseLong(f[i]);
        }
        long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
        return new long[] {total - idle, total};
    }

    private static long memAvailableKb() throws Exception {
        return meminfo("MemAvailable");
    }

    private static long memTotalKb() throws Exception {
        return meminfo("MemTotal");
    }

    private static long meminfo(String field) throws Exception {
        return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith(field + ":"))
                .map(l -> Long.parseLong(l.replaceAll("\\D", ""))).findFirst().orElseThrow();
    }
}
