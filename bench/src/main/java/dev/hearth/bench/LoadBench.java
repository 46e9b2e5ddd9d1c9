package dev.hearth.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.bench.LoadMix.Sample;
import dev.hearth.bench.LoadMix.Targets;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Many users of one workspace at once: {@code clients} connections (virtual threads, curl-like
 * blocking clients) send a mix of reads, writes, key rotations, idempotent creates with retries and
 * execs in two computers of the built-in image, against {@code hearth serve} in its own JVM. The
 * figures are per kind of request (count, 5xx, p50/p99/max) and, last, the worst latency of the run
 * and how many requests took over 2 s: what a user waits for while others work beside them.
 * Needs root and runsc (it starts two computers). Arguments: {@code [seconds=60] [clients=16] [warm=5]}.
 */
public final class LoadBench {
    private static final long SLOW_MICROS = 2_000_000;

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 16;
        int warm = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Path dataDir = Files.createTempDirectory("hearth-load-bench").resolve("data");
        // The default 100 requests a second per principal would make this a bench of the rate limiter
        // (every client is the admin); the pooler takes a free port so another server may run beside.
        try (var hearth = ServedHearth.start(dataDir, "--rate-limit", "1000000", "--pooler-port", "0")) {
            var admin = hearth.admin();
            var tokens = KeyFileTokens.read(dataDir.resolve("admin-key.json"));
            var targets = setUp(admin, () -> tokens.token(admin).orElseThrow());
            var base = URI.create(admin.baseUrl());
            System.out.printf("%d clients, %d s (after %d s of warm-up) against %s%n", clients, seconds, warm, base);
            drive(base, targets, clients, warm);
            var samples = drive(base, targets, clients, seconds);
            report(samples, seconds);
            for (String computer : targets.computers()) {
                admin.delete("/computers/" + computer);
            }
        } finally {
            ComputerBench.TestCleanup.removeAll(dataDir);
        }
    }

    /** A workspace with two running computers, four key principals to rotate and sixteen variables to read and patch. */
    private static Targets setUp(HearthClient admin, Supplier<String> token) throws InterruptedException {
        String ws = admin.create("/workspaces", Map.of("name", "load")).path("workspace").path("id").asText();
        var computers = new ArrayList<String>();
        for (String name : List.of("c1", "c2")) {
            JsonNode created = admin.create("/workspaces/" + ws + "/computers", Map.of("name", name,
                    "image", "hearth/busybox"));
            computers.add(awaitReady(admin, created.path("computer").path("id").asText()));
        }
        var principals = new ArrayList<String>();
        for (int i = 0; i < 4; i++) {
            principals.add(admin.create("/workspaces/" + ws + "/access", Map.of("name", "load-key-" + i,
                    "role", "editor")).path("access").path("principal").path("id").asText());
        }
        var variables = new ArrayList<String>();
        for (int i = 0; i < 16; i++) {
            variables.add(admin.create("/workspaces/" + ws + "/variables", Map.of("name", "seed-" + i,
                    "value", "v")).path("variable").path("id").asText());
        }
        return new Targets(ws, List.copyOf(variables), List.copyOf(principals), List.copyOf(computers), token);
    }

    private static String awaitReady(HearthClient admin, String computer) throws InterruptedException {
        var deadline = Instant.now().plusSeconds(120);
        while (!admin.get("/computers/" + computer).path("computer").path("state").asText().equals("ready")) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("computer " + computer + " not ready after 120 s");
            }
            Thread.sleep(200);
        }
        return computer;
    }

    /** Runs the clients for {@code seconds} and returns every sample they took. */
    private static List<Sample> drive(URI base, Targets targets, int clients, int seconds) throws Exception {
        var running = new AtomicBoolean(true);
        var futures = new ArrayList<Future<List<Sample>>>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < clients; c++) {
                var mix = new LoadMix(c, targets, new RawHttp(base.getHost(), base.getPort()));
                futures.add(pool.submit(() -> mix.run(running::get)));
            }
            Thread.sleep(Duration.ofSeconds(seconds));
            running.set(false);
        }
        var samples = new ArrayList<Sample>();
        for (var future : futures) {
            samples.addAll(future.get());
        }
        return samples;
    }

    private static void report(List<Sample> samples, int seconds) {
        var byKind = new TreeMap<String, List<Sample>>();
        samples.forEach(s -> byKind.computeIfAbsent(s.kind(), k -> new ArrayList<>()).add(s));
        System.out.println();
        System.out.println("| kind | count | 5xx | 4xx | no answer | p50 ms | p99 ms | max ms |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        byKind.forEach((kind, list) -> {
            long[] micros = list.stream().mapToLong(Sample::micros).sorted().toArray();
            System.out.printf("| %s | %d | %d | %d | %d | %.2f | %.2f | %.2f |%n", kind, list.size(),
                    count(list, 500, 600), count(list, 400, 500), count(list, 0, 1),
                    micros[micros.length / 2] / 1000.0, micros[(int) (micros.length * 0.99)] / 1000.0,
                    micros[micros.length - 1] / 1000.0);
        });
        var retries = byKind.getOrDefault("idempotent retry", List.of());
        System.out.printf("%nidempotent retries replayed (Idempotent-Replayed: true): %d of %d%n",
                retries.stream().filter(Sample::replayed).count(), retries.size());
        long max = samples.stream().mapToLong(Sample::micros).max().orElse(0);
        long slow = samples.stream().filter(s -> s.micros() > SLOW_MICROS).count();
        var refusals = new TreeMap<String, Long>();
        samples.stream().filter(s -> s.status() >= 400 && s.status() < 500)
                .forEach(s -> refusals.merge(s.kind() + " " + s.status(), 1L, Long::sum));
        System.out.printf("4xx by kind and status: %s%n", refusals);
        System.out.printf("load average %s%n", loadAverage());
        System.out.printf("overall: %d requests in %d s (%.0f/s), 5xx %d, max latency %.1f ms, over 2 s: %d%n",
                samples.size(), seconds, samples.size() / (double) seconds, count(samples, 500, 600), max / 1000.0,
                slow);
    }

    private static long count(List<Sample> samples, int from, int to) {
        return samples.stream().filter(s -> s.status() >= from && s.status() < to).count();
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "unknown";
        }
    }
}
