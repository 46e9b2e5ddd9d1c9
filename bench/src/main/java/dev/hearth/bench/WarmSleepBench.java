package dev.hearth.bench;

import static dev.hearth.bench.SnapshotBench.add;
import static dev.hearth.bench.SnapshotBench.await;
import static dev.hearth.bench.SnapshotBench.median;

import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.server.Config;
import dev.hearth.server.HearthServer;
import dev.hearth.server.router.RouterSettings;
import dev.hearth.server.sandbox.runsc.RunscRuntime;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A warm sleep and wake of a Hearth computer (its cgroup frozen and thawed) beside {@code runsc pause}
 * and {@code runsc resume} of a raw sandbox of the same bundle, in the same run: sleep, wake, wake to
 * the first exec ({@code true}) and to the first HTTP byte through the router; the same two for a
 * computer frozen while idle (still ready: the server here freezes after 1 s idle), which thaws it;
 * and the CPU a computer uses at rest awake, frozen while idle and asleep warm. Needs root, runsc,
 * gcc, umoci, busybox and curl.
 * Arguments: {@code [rounds=15]}.
 */
public final class WarmSleepBench {
    private final Map<String, List<Double>> raw = new LinkedHashMap<>();
    private final Map<String, List<Double>> hearth = new LinkedHashMap<>();

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        Path work = Files.createTempDirectory("hearth-warm-bench");
        String image = SnapshotBench.buildImage(work);
        var config = Config.defaults(work.resolve("hearth")).withPort(0).withLocalImages(List.of(work))
                .withRouter(new RouterSettings("127.0.0.1", 0, "localhost", Optional.empty()));
        config = config.withSleep(config.sleep().freezingIdleAfter(Duration.ofSeconds(1)));
        try (var server = HearthServer.start(config)) {
            var admin = new HearthClient(server.baseUrl(), KeyFileTokens.read(work.resolve("hearth/admin-key.json")));
            String ws = admin.create("/workspaces", Map.of("name", "bench")).path("workspace").path("id").asText();
            await(admin, admin.create("/workspaces/" + ws + "/images", Map.of("reference", image)));
            String token = KeyFileTokens.read(work.resolve("hearth/admin-key.json")).token(admin).orElseThrow();
            new WarmSleepBench().run(admin, token, ws, image, work, rounds);
            System.out.printf("%nload average %s%n", Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        }
        ComputerBench.TestCleanup.teardown(work.resolve("hearth"));
        ComputerBench.TestCleanup.unmountDisks(work);
    }

    private void run(HearthClient admin, String token, String ws, String image, Path work, int rounds) throws Exception {
        // httpd alone: SnapshotBench's probe wakes every millisecond, which would load both cores.
        var computer = served(admin, ws, "warm", image, false);
        String id = computer.path("id").asText();
        String url = computer.path("url").asText() + "/";
        var dozer = served(admin, ws, "dozer", image, true);
        String dozerUrl = dozer.path("url").asText() + "/";
        var sandbox = RawSandbox.prepare(work, work.resolve("hearth/computers").resolve(id).resolve("bundle/config.json"), 0);
        try {
            sandbox.network();
            sandbox.start();
            String rawUrl = "http://" + sandbox.guest + ":8080/";
            firstByte(rawUrl);
            firstByte(url);
            try (var api = new BlockingHttp(admin.baseUrl(), token)) {
                for (int round = 0; round < rounds; round++) {
                    rawRound(sandbox, rawUrl);
                    hearthRound(api, id, url);
                    thawRound(admin, api, dozer.path("id").asText(), dozerUrl);
                }
            }
            print();
            atRest(admin, ws, work.resolve("hearth/runsc"));
        } finally {
            sandbox.delete();
            sandbox.removeNetwork();
            admin.delete("/computers/" + id);
            admin.delete("/computers/" + dozer.path("id").asText());
        }
    }

    /** A computer serving the image's /www on its port 80, frozen while idle or not. */
    private static com.fasterxml.jackson.databind.JsonNode served(HearthClient admin, String ws, String name,
                                                                  String image, boolean freeze) {
        return admin.create("/workspaces/" + ws + "/computers", Map.of("name", name, "image", image,
                "entrypoint", List.of("/bin/sh"), "command", List.of("-c", "exec httpd -f -p 8080 -h /www"),
                "ports", List.of(Map.of("target", 8080, "published", 80)), "freeze_when_idle", freeze))
                .path("computer");
    }

    /** Frozen while idle, then the first exec; frozen again, then the first HTTP byte: each thaws it. */
    private void thawRound(HearthClient admin, BlockingHttp api, String id, String url) throws Exception {
        awaitFrozen(admin, id);
        long t = System.nanoTime();
        api.send("POST", "/computers/" + id + "/exec", "{\"command\":[\"true\"]}");
        add(hearth, "frozen while idle: to first exec", t);
        awaitFrozen(admin, id);
        t = System.nanoTime();
        firstByte(url);
        add(hearth, "frozen while idle: to first HTTP byte", t);
    }

    private static void awaitFrozen(HearthClient admin, String id) throws InterruptedException {
        for (int i = 0; i < 600; i++) {
            if (!admin.get("/computers/" + id).path("computer").path("frozen_since").isNull()) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("computer " + id + " did not freeze while idle");
    }

    private void rawRound(RawSandbox sandbox, String url) throws Exception {
        long t = System.nanoTime();
        sandbox.pause();
        add(raw, "sleep", t);
        t = System.nanoTime();
        sandbox.resume();
        add(raw, "wake", t);
        sandbox.pause();
        t = System.nanoTime();
        sandbox.resume();
        sandbox.exec("true");
        add(raw, "wake to first exec", t);
        sandbox.pause();
        t = System.nanoTime();
        sandbox.resume();
        firstByte(url);
        add(raw, "wake to first HTTP byte", t);
    }

    /** Through the blocking client (as curl would; see BlockingHttp), so that the JDK client's hand-offs are not counted. */
    private void hearthRound(BlockingHttp api, String id, String url) throws Exception {
        String computer = "/computers/" + id;
        long t = System.nanoTime();
        api.send("POST", computer + "/sleep", "{}");
        add(hearth, "sleep", t);
        t = System.nanoTime();
        api.send("POST", computer + "/wake", "{}");
        add(hearth, "wake", t);
        api.send("POST", computer + "/sleep", "{}");
        t = System.nanoTime();
        api.send("POST", computer + "/exec", "{\"command\":[\"true\"]}");
        add(hearth, "wake to first exec", t);
        api.send("POST", computer + "/sleep", "{}");
        t = System.nanoTime();
        firstByte(url);
        add(hearth, "wake to first HTTP byte", t);
        // The floor under every row: one API round trip that changes nothing.
        t = System.nanoTime();
        api.send("GET", computer, null);
        add(hearth, "GET of the computer (API floor)", t);
        // Execs alone, awake: what the first exec costs without the wake.
        t = System.nanoTime();
        api.send("POST", computer + "/exec", "{\"command\":[\"true\"]}");
        add(hearth, "exec alone (awake)", t);
    }

    /** One GET on a new connection (as a browser's first request), until it answers 200; names resolve to 127.0.0.1. */
    private static void firstByte(String url) throws Exception {
        var uri = URI.create(url);
        String host = uri.getHost().endsWith(".localhost") ? "127.0.0.1" : uri.getHost();
        for (int i = 0; i < 5000; i++) {
            try (var socket = new Socket(host, uri.getPort() < 0 ? 80 : uri.getPort())) {
                socket.setTcpNoDelay(true);
                socket.getOutputStream().write(("GET / HTTP/1.1\r\nHost: " + uri.getAuthority()
                        + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                byte[] status = socket.getInputStream().readNBytes(12);
                if (new String(status, StandardCharsets.US_ASCII).endsWith("200")) {
                    return;
                }
            } catch (IOException notYet) {
                // the listener is not back yet
            }
            Thread.sleep(1);
        }
        throw new IllegalStateException("no answer from " + url);
    }

    private void print() {
        System.out.println("| step | raw runsc pause/resume (median ms) | hearth warm (median ms) | ratio |");
        System.out.println("|---|---|---|---|");
        for (var step : hearth.keySet()) {
            double h = median(hearth.get(step));
            // A thaw's floor is the raw sandbox's resume to the same first answer.
            String floor = step.replace("frozen while idle: to", "wake to");
            if (raw.containsKey(floor)) {
                double r = median(raw.get(floor));
                System.out.printf("| %s | %.1f | %.1f | %.2f |%n", step, r, h, h / r);
            } else {
                System.out.printf("| %s | - | %.1f | - |%n", step, h);
            }
        }
    }

    /**
     * CPU over 5 s from the cgroup of a hearth/busybox computer (the probe computer wakes every
     * millisecond), awake and idle, then asleep warm; and the memory it keeps.
     */
    private static void atRest(HearthClient admin, String ws, Path runscRoot) throws Exception {
        String id = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "idle", "image", "hearth/busybox",
                "freeze_when_idle", false)).path("computer").path("id").asText();
        Path group = Path.of("/sys/fs/cgroup/cpuacct", RunscRuntime.cgroupParent(runscRoot), id + "-0001");
        Path memory = Path.of("/sys/fs/cgroup/memory", RunscRuntime.cgroupParent(runscRoot), id + "-0001");
        double awake = cpuPerSecond(group);
        admin.patch("/computers/" + id, Map.of("freeze_when_idle", true));
        awaitFrozen(admin, id);
        double frozen = cpuPerSecond(group);
        admin.post("/computers/" + id + "/sleep", Map.of());
        double asleep = cpuPerSecond(group);
        long bytes = Long.parseLong(Files.readString(memory.resolve("memory.usage_in_bytes")).strip());
        System.out.printf("%nat rest: awake and idle %.1f ms CPU/s (freeze_when_idle false); frozen while idle %.1f ms"
                + " CPU/s; asleep warm %.1f ms CPU/s, %.1f MiB of memory kept%n", awake, frozen, asleep, bytes / 1048576.0);
        admin.delete("/computers/" + id);
    }

    private static double cpuPerSecond(Path group) throws Exception {
        long before = Long.parseLong(Files.readString(group.resolve("cpuacct.usage")).strip());
        Thread.sleep(5000);
        long after = Long.parseLong(Files.readString(group.resolve("cpuacct.usage")).strip());
        return (after - before) / 5e6;
    }
}
