package dev.hearth.bench;

import dev.hearth.client.HearthClient;
import dev.hearth.server.pool.PoolState;
import dev.hearth.server.nodes.NodeSettings;
import dev.hearth.server.pool.PoolStore;
import dev.hearth.server.pool.PooledSandbox;
import dev.hearth.server.sandbox.runsc.RunscRuntime;
import dev.hearth.server.store.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Creates from the warm pool against raw runsc and against cold creates, in one run: create to
 * first exec (POST computer + POST exec of /bin/true) of a pooled {@code hearth/busybox}, with the
 * JDK's HttpClient and with a curl-like blocking client; the same create started cold (resources
 * other than the pool's); raw {@code runsc run} + {@code runsc exec} of the same bundle; then a burst
 * of creates at once against a pool of two, and what a pooled sandbox costs at rest.
 * Needs root and runsc. Arguments: {@code [rounds=10] [burst=20]}.
 */
public final class PoolBench {
    private static final String TRUE = "{\"command\": [\"/bin/true\"]}";

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int burst = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Path dataDir = Files.createTempDirectory("hearth-bench").resolve("data");
        try (var hearth = ServedHearth.start(dataDir, "--warm-pool", "hearth/busybox=2");
             var store = Store.open(null, dataDir)) {
            var admin = hearth.admin();
            var curlLike = hearth.blockingAdmin();
            String ws = admin.create("/workspaces", Map.of("name", "bench")).path("workspace").path("id").asText();
            var pool = new Pool(store, dataDir);
            pool.awaitFull();
            // The pooled sandboxes' cost at rest, before anything is claimed.
            var rest = pool.atRest();
            // Raw sandboxes copy a computer's bundle (its /etc files too): one that stays to the end, as in ComputerBench.
            String template = createAndExec(admin, ws, "template", Map.of());
            Path bundle = dataDir.resolve("computers").resolve(template).resolve("bundle/config.json");

            var raw = new ArrayList<Double>();
            var pooledJdk = new ArrayList<Double>();
            var pooledBlocking = new ArrayList<Double>();
            var cold = new ArrayList<Double>();
            for (int round = 0; round < rounds; round++) {
                int i = round;
                raw.add(ComputerBench.rawCreateToFirstExec(dataDir, bundle, i));
                // Each computer goes at once: idle ones would take CPU from the next rounds.
                pool.awaitFull();
                pooledJdk.add(timedAndDeleted(admin, () -> createAndExec(admin, ws, "j" + i, Map.of())));
                pool.awaitFull();
                pooledBlocking.add(timedAndDeleted(admin, () -> blockingCreateAndExec(curlLike, ws, "b" + i)));
                pool.awaitFull();
                cold.add(timedAndDeleted(admin, () -> createAndExec(admin, ws, "c" + i,
                        Map.of("resources", Map.of("memory_mb", 256)))));
            }
            System.out.println("| create to first exec | median ms | ratio to raw run + exec |");
            System.out.println("|---|---|---|");
            row("raw runsc run + runsc exec", raw, raw);
            row("pooled, JDK HttpClient", pooledJdk, raw);
            row("pooled, blocking client", pooledBlocking, raw);
            row("cold (pool does not fit), JDK HttpClient", cold, raw);
            burst(admin, ws, pool, burst);
            admin.delete("/computers/" + template);
            System.out.printf("%nA pooled sandbox at rest: %.1f MiB of memory (its cgroup), %.1f ms of CPU a second%n",
                    rest[0], rest[1]);
        } finally {
            ComputerBench.TestCleanup.removeAll(dataDir);
        }
    }

    private static String createAndExec(HearthClient admin, String ws, String name, Map<String, Object> extra) {
        var body = new HashMap<String, Object>(Map.of("name", name, "image", "hearth/busybox"));
        body.putAll(extra);
        String id = admin.create("/workspaces/" + ws + "/computers", body).path("computer").path("id").asText();
        admin.post("/computers/" + id + "/exec", Map.of("command", List.of("/bin/true")));
        return id;
    }

    private static String blockingCreateAndExec(BlockingHttp client, String ws, String name) throws Exception {
        String created = client.create("/workspaces/" + ws + "/computers",
                "{\"name\": \"" + name + "\", \"image\": \"hearth/busybox\"}", UUID.randomUUID().toString());
        String id = created.replaceAll("(?s).*?\"id\"\\s*:\\s*\"([^\"]+)\".*", "$1");
        client.send("POST", "/computers/" + id + "/exec", TRUE);
        return id;
    }

    /** {@code n} creates at once: every one must answer; how many the pool served, and their median. */
    private static void burst(HearthClient admin, String ws, Pool pool, int n) throws Exception {
        pool.awaitFull();
        var pooledIds = new HashSet<>(pool.ready().stream().map(PooledSandbox::id).toList());
        var times = new ArrayList<Double>();
        var ids = new ArrayList<String>();
        int claimed = 0;
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            var futures = new ArrayList<Future<Map.Entry<String, Double>>>();
            for (int i = 0; i < n; i++) {
                String name = "burst" + i;
                futures.add(threads.submit(() -> {
                    long t = System.nanoTime();
                    String id = createAndExec(admin, ws, name, Map.of());
                    return Map.entry(id, (System.nanoTime() - t) / 1e6);
                }));
            }
            for (var f : futures) {
                var r = f.get();
                ids.add(r.getKey());
                times.add(r.getValue());
                claimed += pooledIds.contains(r.getKey()) ? 1 : 0;
            }
        }
        ids.forEach(id -> admin.delete("/computers/" + id));
        System.out.printf("%nBurst: %d creates at once against a pool of 2: %d answered (%d from the pool); "
                + "create to first exec median %.1f ms, slowest %.1f ms%n", n, times.size(), claimed,
                SnapshotBench.median(times),
                times.stream().mapToDouble(Double::doubleValue).max().orElse(0));
    }

    private static double timedAndDeleted(HearthClient admin, Callable<String> create) throws Exception {
        long t = System.nanoTime();
        String id = create.call();
        double ms = (System.nanoTime() - t) / 1e6;
        admin.delete("/computers/" + id);
        return ms;
    }

    private static void row(String what, List<Double> values, List<Double> raw) {
        double median = SnapshotBench.median(values);
        System.out.printf("| %s | %.1f | %.2f |%n", what, median, median / SnapshotBench.median(raw));
    }

    /** The server's pool, read from its store as {@code hearth admin pool} does. */
    private record Pool(Store store, Path dataDir) {
        List<PooledSandbox> ready() {
            return store.jdbi().withHandle(new PoolStore(NodeSettings.DEFAULT_NAME)::all).stream()
                    .filter(p -> p.state() == PoolState.READY).toList();
        }

        void awaitFull() throws InterruptedException {
            for (int i = 0; i < 600 && ready().size() < 2; i++) {
                Thread.sleep(50);
            }
            if (ready().size() < 2) {
                throw new IllegalStateException("the pool did not fill in 30 s");
            }
            Thread.sleep(200); // the filler's last boot settles (its agent answered; the sandbox goes idle)
        }

        /** Memory (MiB) and CPU (ms a second, over 5 s) of the pooled sandboxes, each on average. */
        double[] atRest() throws InterruptedException {
            var runtime = new RunscRuntime("runsc", dataDir.resolve("runsc"));
            var ids = ready().stream().map(p -> p.id() + "-0001").toList();
            double cpuBefore = ids.stream().mapToDouble(id -> runtime.usage(id).orElseThrow().cpuSeconds()).sum();
            Thread.sleep(5000);
            var usages = ids.stream().map(id -> runtime.usage(id).orElseThrow()).toList();
            double cpu = usages.stream().mapToDouble(u -> u.cpuSeconds()).sum() - cpuBefore;
            double memory = usages.stream().mapToLong(u -> u.memoryBytes()).sum() / 1048576.0;
            return new double[] {memory / ids.size(), cpu * 1000 / 5 / ids.size()};
        }
    }
}
