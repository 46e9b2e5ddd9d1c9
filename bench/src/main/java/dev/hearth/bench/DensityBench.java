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
 * idle, unless {@code freeze=false}), the API's latency over what a user does (a GET of a computer,
 * a page of the list, an exec in one picked at random, which thaws it), beside its floor in the same
 * run ({@code GET /v1/health}); with the share of the host's CPU that was busy, the memory the
 * computers took and the load average. {@code hearth serve} runs in its own JVM. Needs root and
 * runsc. Arguments: {@code [target=500] [step=100] [requests=300] [freeze=true]}.
 */
public final class DensityBench {
    private static final String TRUE = "{\"command\": [\"/bin/true\"]}";

    public static void main(String[] args) throws Exception {
        int target = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        int step = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int requests = args.length > 2 ? Integer.parseInt(args[2]) : 300;
        boolean freeze = args.length <= 3 || Boolean.parseBoolean(args[3]);
        Path dataDir = Files.createTempDirectory("hearth-density").resolve("data");
        try (var hearth = ServedHearth.start(dataDir)) {
            var admin = hearth.admin();
            String ws = admin.create("/workspaces", Map.of("name", "density")).path("workspace").path("id").asText();
            long memoryBefore = memAvailableKb();
            var ids = new ArrayList<String>();
            System.out.println("| computers | made in (s) | settled in (s) | host CPU busy | MiB each | load | health p50/p99 (ms) | "
                    + "API mix p50/p99 (ms) | exec (thaws) p50/p99 (ms) |");
            System.out.println("|---|---|---|---|---|---|---|---|---|");
            try (var api = hearth.blockingAdmin()) {
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
                    settle(admin, ids, freeze);
                    double settled = (System.nanoTime() - t) / 1e9;
                    measure(api, ws, ids, requests, made, settled, (memoryBefore - memAvailableKb()) / 1024.0);
                }
            }
            for (String id : ids) {
                admin.delete("/computers/" + id);
            }
        } finally {
            ComputerBench.TestCleanup.removeAll(dataDir);
        }
    }

    /** Until every computer is frozen while idle (or, not freezing, 15 s for them to go quiet). */
    private static void settle(HearthClient admin, List<String> ids, boolean freeze) throws Exception {
        if (!freeze) {
            Thread.sleep(15_000);
            return;
        }
        long deadline = System.nanoTime() + 300_000_000_000L;
        while (System.nanoTime() < deadline) {
            long awake = ids.stream().filter(id -> admin.get("/computers/" + id).path("computer")
                    .path("frozen_since").isNull()).count();
            if (awake == 0) {
                return;
            }
            Thread.sleep(1000);
        }
        throw new IllegalStateException("computers did not all freeze within 5 minutes");
    }

    private static void measure(BlockingHttp api, String ws, List<String> ids, int requests, double made,
                                double settled, double mibUsed) throws Exception {
        var random = new Random(ids.size());
        var health = new double[requests];
        var mix = new double[requests];
        var exec = new double[requests / 3];
        long[] cpuBefore = cpu();
        for (int i = 0; i < requests; i++) {
            health[i] = timed(() -> api.send("GET", "/health", null));
            String id = ids.get(random.nextInt(ids.size()));
            mix[i] = switch (i % 3) {
                case 0 -> timed(() -> api.send("GET", "/computers/" + id, null));
                case 1 -> timed(() -> api.send("GET", "/workspaces/" + ws + "/computers?limit=50", null));
                default -> exec[i / 3] = timed(() -> api.send("POST", "/computers/" + id + "/exec", TRUE));
            };
        }
        long[] cpuAfter = cpu();
        double busy = 100.0 * (cpuAfter[0] - cpuBefore[0]) / Math.max(1, cpuAfter[1] - cpuBefore[1]);
        System.out.printf("| %d | %.0f | %.0f | %.0f %% | %.1f | %s | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f |%n",
                ids.size(), made, settled, busy, mibUsed / ids.size(),
                Files.readString(Path.of("/proc/loadavg")).split(" ")[0], pct(health, 50), pct(health, 99),
                pct(mix, 50), pct(mix, 99), pct(exec, 50), pct(exec, 99));
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
        return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemAvailable"))
                .map(l -> Long.parseLong(l.replaceAll("\\D", ""))).findFirst().orElseThrow();
    }
}
