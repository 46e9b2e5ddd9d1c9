package dev.hearth.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.fs.Disk;
import dev.hearth.server.Config;
import dev.hearth.server.HearthServer;
import dev.hearth.server.computers.SleepSettings;
import dev.hearth.server.disks.Blocks;
import dev.hearth.server.disks.Disks;
import dev.hearth.server.router.RouterSettings;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Checkpoint, sleep, wake and fork of a Hearth computer beside the same steps done with runsc by hand
 * on a raw sandbox of the same bundle, in the same run, for a tiny computer and one with 200 MiB of
 * touched memory. The computer's main process (probe.c) wakes every millisecond and reports the
 * longest gap it saw: the pause as seen from inside. With {@code data} MiB of random bytes in /data
 * (written first on both), the copy of /data is timed alone too: {@code cp -a} of the raw sandbox's
 * /data beside Hearth's copy of the computer's disk (freeze, clone, thaw: what a checkpoint does).
 * Needs root, runsc, gcc, umoci, busybox and curl. Arguments: {@code [rounds=5] [mib=0,200] [data=0]}.
 */
public final class SnapshotBench {
    private final HearthClient admin;
    private final String ws;
    private final Path work;
    private final Map<String, List<Double>> raw = new LinkedHashMap<>();
    private final Map<String, List<Double>> hearth = new LinkedHashMap<>();
    private final int dataMib;

    private SnapshotBench(HearthClient admin, String ws, Path work, int dataMib) {
        this.admin = admin;
        this.ws = ws;
        this.work = work;
        this.dataMib = dataMib;
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        var sizes = Arrays.stream((args.length > 1 ? args[1] : "0,200").split(",")).map(Integer::parseInt).toList();
        int dataMib = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        Path work = Files.createTempDirectory("hearth-snapshot-bench");
        String image = buildImage(work);
        // Cold at once: sleep is a checkpoint to disk and wake a restore, beside runsc's own (WarmSleepBench has warm).
        var config = Config.defaults(work.resolve("hearth")).withPort(0).withLocalImages(List.of(work))
                .withRouter(new RouterSettings("127.0.0.1", 0, "localhost", Optional.empty()))
                .withSleep(new SleepSettings(Duration.ZERO, 0));
        try (var server = HearthServer.start(config)) {
            var admin = new HearthClient(server.baseUrl(), KeyFileTokens.read(work.resolve("hearth/admin-key.json")));
            String ws = admin.create("/workspaces", Map.of("name", "bench")).path("workspace").path("id").asText();
            await(admin, admin.create("/workspaces/" + ws + "/images", Map.of("reference", image)));
            System.out.println("| computer | step | raw runsc (median ms) | hearth (median ms) | ratio |");
            System.out.println("|---|---|---|---|---|");
            int index = 0;
            for (int mib : sizes) {
                var bench = new SnapshotBench(admin, ws, work, dataMib);
                bench.measure(image, mib, rounds, index);
                bench.print((mib == 0 ? "tiny" : mib + " MiB touched") + (dataMib == 0 ? "" : ", " + dataMib
                        + " MiB in /data"));
                index += 2;
            }
            System.out.printf("%nload average %s%n", Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } finally {
            // Its disks' volume, sandboxes and files: a bench that threw leaves nothing either.
            ComputerBench.TestCleanup.removeAll(work.resolve("hearth"));
        }
    }

    private void measure(String image, int mib, int rounds, int index) throws Exception {
        var computer = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "probe-" + mib, "image", image,
                "env", Map.of("PROBE_MIB", String.valueOf(mib)), "ports", List.of(Map.of("target", 8080, "published", 80)),
                "resources", Map.of("memory_mb", 1024, "disk_mb", Math.max(4096, 2 * dataMib)))).path("computer");
        String id = computer.path("id").asText();
        String url = computer.path("url").asText() + "/";
        Path template = work.resolve("hearth/computers").resolve(id).resolve("bundle/config.json");
        var sandbox = RawSandbox.prepare(work, template, index);
        try {
            sandbox.network();
            sandbox.start();
            String rawUrl = "http://" + sandbox.guest + ":8080/";
            awaitProbe(() -> sandbox.exec("cat", "/tmp/maxgap"));
            awaitProbe(() -> exec(id, "cat /tmp/maxgap"));
            fillData(sandbox, id);
            firstByte(url);
            for (int round = 0; round < rounds; round++) {
                Path images = Files.createDirectories(work.resolve("raw-images"));
                rawRound(sandbox, images.resolve(mib + "-" + round), rawUrl, index + 1);
                hearthRound(id, url, round);
            }
        } finally {
            sandbox.delete();
            sandbox.removeNetwork();
            admin.delete("/computers/" + id);
        }
    }

    /** pause → copy /data → checkpoint --leave-running → resume; sleep; wake; wake to first byte; fork. */
    private void rawRound(RawSandbox sandbox, Path image, String url, int forkIndex) throws Exception {
        sandbox.exec("touch", "/tmp/reset");
        Thread.sleep(100);
        long t = System.nanoTime();
        sandbox.pause();
        long copy = System.nanoTime();
        RawSandbox.run("cp", "-a", "--reflink=auto", sandbox.data().toString(), image.resolveSibling(image.getFileName() + "-data").toString());
        add(raw, "copy of /data (cp -a; Hearth: its disk)", copy);
        sandbox.checkpoint(image, true);
        sandbox.resume();
        add(raw, "checkpoint, paused for /data (wall)", t);
        Thread.sleep(100);
        raw.computeIfAbsent("checkpoint, paused for /data: pause seen inside", k -> new ArrayList<>())
                .add(Long.parseLong(sandbox.exec("cat", "/tmp/maxgap").strip()) / 1000.0);
        // The bare primitive: checkpoint --leave-running alone (no /data copy).
        sandbox.exec("touch", "/tmp/reset");
        Thread.sleep(100);
        t = System.nanoTime();
        sandbox.checkpoint(image.resolveSibling(image.getFileName() + "-bare"), true);
        add(raw, "checkpoint (wall)", t);
        Thread.sleep(100);
        raw.computeIfAbsent("checkpoint: pause seen inside", k -> new ArrayList<>())
                .add(Long.parseLong(sandbox.exec("cat", "/tmp/maxgap").strip()) / 1000.0);

        Path sleepImage = image.resolveSibling(image.getFileName() + "-sleep");
        t = System.nanoTime();
        sandbox.checkpoint(sleepImage, false);
        sandbox.delete();
        add(raw, "sleep", t);
        t = System.nanoTime();
        sandbox.restore(sleepImage);
        add(raw, "wake", t);
        sandbox.checkpoint(sleepImage.resolveSibling(sleepImage.getFileName() + "2"), false);
        sandbox.delete();
        t = System.nanoTime();
        sandbox.restore(sleepImage.resolveSibling(sleepImage.getFileName() + "2"));
        firstByte(url);
        add(raw, "wake to first HTTP byte", t);

        var fork = RawSandbox.prepare(work, work.resolve("raw").resolve(String.format("rawbench%04d", forkIndex - 1))
                .resolve("bundle/config.json"), forkIndex);
        try {
            t = System.nanoTime();
            fork.network();
            Disk.deleteTree(fork.data()); // an earlier round's copy may be there
            RawSandbox.run("cp", "-a", "--reflink=auto", image.resolveSibling(image.getFileName() + "-data").toString(),
                    fork.data().toString());
            fork.restore(image);
            add(raw, "fork (new computer from checkpoint)", t);
        } finally {
            fork.delete();
            fork.removeNetwork();
            Disk.deleteTree(image.getParent());
        }
    }

    private void hearthRound(String id, String url, int round) throws Exception {
        exec(id, "touch /tmp/reset");
        Thread.sleep(100);
        long t = System.nanoTime();
        var made = admin.send("POST", "/computers/" + id + "/checkpoints", Map.of("name", "r" + round),
                Map.of("Idempotency-Key", UUID.randomUUID().toString())).body();
        await(admin, made);
        add(hearth, "checkpoint (wall)", t);
        Thread.sleep(100);
        hearth.computeIfAbsent("checkpoint: pause seen inside", k -> new ArrayList<>())
                .add(Long.parseLong(exec(id, "cat /tmp/maxgap")) / 1000.0);

        t = System.nanoTime();
        admin.post("/computers/" + id + "/sleep", Map.of());
        add(hearth, "sleep", t);
        t = System.nanoTime();
        admin.post("/computers/" + id + "/wake", Map.of());
        add(hearth, "wake", t);
        admin.post("/computers/" + id + "/sleep", Map.of());
        t = System.nanoTime();
        firstByte(url);
        add(hearth, "wake to first HTTP byte", t);

        copyDisk(id);
        String checkpoint = made.path("checkpoint").path("id").asText();
        t = System.nanoTime();
        var fork = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "fork-" + UUID.randomUUID().toString()
                .substring(0, 8), "from_checkpoint", checkpoint)).path("computer");
        add(hearth, "fork (new computer from checkpoint)", t);
        if (!fork.path("state").asText().equals("ready")) {
            throw new IllegalStateException("fork failed: " + fork);
        }
        admin.delete("/computers/" + fork.path("id").asText());
        await(admin, admin.delete("/computers/" + id + "/checkpoints/" + checkpoint));
    }

    /** The same random bytes' worth in both sandboxes' /data. */
    private void fillData(RawSandbox sandbox, String id) throws Exception {
        if (dataMib == 0) {
            return;
        }
        RawSandbox.run("dd", "if=/dev/urandom", "of=" + sandbox.data().resolve("blob"), "bs=1M", "count=" + dataMib);
        admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c", "dd if=/dev/urandom of=/data/blob"
                + " bs=1M count=" + dataMib + " 2>/dev/null && sync"), "timeout_seconds", 600));
    }

    /**
     * What a checkpoint does with /data, alone, on the running computer: its disk frozen, cloned and
     * thawed by Hearth's own code; beside it the clone as a command ({@code cp --reflink=always}).
     */
    private void copyDisk(String id) throws Exception {
        Path dir = work.resolve("hearth/computers").resolve(id);
        Path disk = work.resolve("hearth/disks").resolve(id + ".img");
        Path copy = disk.resolveSibling("bench-copy.img");
        long t = System.nanoTime();
        new Disks().snapshot(dir, disk, copy);
        add(hearth, "copy of /data (cp -a; Hearth: its disk)", t);
        Files.delete(copy);
        // The same in its two parts: written down while writers go on, then frozen (writers wait) and cloned.
        exec(id, "head -c 268435456 /dev/urandom > /data/fresh");
        t = System.nanoTime();
        Blocks.flush(List.of(dir), List.of(disk));
        add(hearth, "copy of /data, 256 MiB just written: flushed, writers going on", t);
        t = System.nanoTime();
        Blocks.frozen(List.of(dir), () -> Blocks.clone(disk, copy));
        add(hearth, "copy of /data, 256 MiB just written: frozen and cloned, writers waiting", t);
        Files.delete(copy);
        exec(id, "rm /data/fresh");
        t = System.nanoTime();
        RawSandbox.run("cp", "--reflink=always", disk.toString(), copy.toString());
        add(raw, "cp --reflink=always of the computer's disk image, not frozen", t);
        Files.delete(copy);
    }

    private String exec(String id, String script) {
        return admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c", script)))
                .path("stdout").asText().strip();
    }

    private void print(String computer) {
        var steps = new LinkedHashSet<>(raw.keySet());
        steps.addAll(hearth.keySet());
        for (var step : steps) {
            if (raw.containsKey(step) && hearth.containsKey(step)) {
                double r = median(raw.get(step));
                double h = median(hearth.get(step));
                System.out.printf("| %s | %s | %.1f | %.1f | %.2f |%n", computer, step, r, h, h / r);
            } else if (raw.containsKey(step)) {
                System.out.printf("| %s | %s | %.1f | - | - |%n", computer, step, median(raw.get(step)));
            } else {
                System.out.printf("| %s | %s | - | %.1f | - |%n", computer, step, median(hearth.get(step)));
            }
        }
    }

    static void add(Map<String, List<Double>> into, String step, long startNanos) {
        into.computeIfAbsent(step, k -> new ArrayList<>()).add((System.nanoTime() - startNanos) / 1e6);
    }

    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        return v[v.length / 2];
    }

    /** Polls with curl until the server answers 200 (curl resolves *.localhost to the loopback address). */
    static void firstByte(String url) throws Exception {
        for (int i = 0; i < 2000; i++) {
            var p = new ProcessBuilder("curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "10", url).start();
            String status = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            if (status.equals("200")) {
                return;
            }
            Thread.sleep(5);
        }
        throw new IllegalStateException("no answer from " + url);
    }

    @FunctionalInterface
    private interface Probe {
        String read() throws Exception;
    }

    /** The probe touches its memory before it writes its first gap. */
    private static void awaitProbe(Probe probe) throws Exception {
        for (int i = 0; i < 600; i++) {
            try {
                String gap = probe.read();
                if (!gap.isBlank() && !gap.contains("No such file")) {
                    return;
                }
            } catch (IllegalStateException notYet) {
                // the file is not there yet
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the probe never started");
    }

    static void await(HearthClient admin, JsonNode accepted) {
        String op = accepted.path("operations").get(0).asText();
        var done = admin.get("/operations/" + op + "?wait=60").path("operation");
        if (!done.path("state").asText().equals("succeeded")) {
            throw new IllegalStateException("operation failed: " + done);
        }
    }

    /** busybox for httpd and sh, the probe compiled static, an entrypoint that starts both. */
    static String buildImage(Path work) throws Exception {
        Path source = work.resolve("probe.c");
        try (InputStream in = SnapshotBench.class.getResourceAsStream("/probe.c")) {
            Files.write(source, in.readAllBytes());
        }
        Path layout = work.resolve("layout");
        Path bundle = work.resolve("image-bundle");
        RawSandbox.run("sh", "-c", "gcc -static -O2 -o " + work.resolve("probe") + " " + source
                + " && umoci init --layout " + layout + " && umoci new --image " + layout + ":v1"
                + " && umoci unpack --image " + layout + ":v1 " + bundle
                + " && mkdir -p " + bundle + "/rootfs/bin " + bundle + "/rootfs/www"
                + " && cp /bin/busybox " + bundle + "/rootfs/bin/ && chroot " + bundle + "/rootfs /bin/busybox --install -s /bin"
                + " && cp " + work.resolve("probe") + " " + bundle + "/rootfs/probe && echo ok > " + bundle + "/rootfs/www/index.html"
                + " && umoci repack --image " + layout + ":v1 " + bundle
                + " && umoci config --image " + layout + ":v1 --config.entrypoint /bin/sh --config.cmd -c"
                + " --config.cmd 'httpd -p 8080 -h /www; exec /probe ${PROBE_MIB:-0}' --config.env PATH=/bin");
        return "oci:" + layout + ":v1";
    }
}
