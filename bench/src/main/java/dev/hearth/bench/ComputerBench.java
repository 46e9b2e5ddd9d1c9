package dev.hearth.bench;

import dev.hearth.client.HearthClient;
import dev.hearth.fs.Disk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Computers against raw runsc, in the same run on the same bundle shape: create-to-first-exec
 * (Hearth: POST computer + POST exec; raw: netns + veth, runsc run --detach, runsc exec) and exec
 * round trip (Hearth's exec route against runsc exec on the same sandbox), then density: idle
 * computers created until the target, each answering an exec, with the host memory they took.
 * The server is {@code hearth serve} in its own JVM; exec round trips are timed with the JDK's
 * HttpClient and with a curl-like blocking client ({@link BlockingHttp}).
 * Needs root and runsc. Arguments: {@code [rounds=10] [density=50]}.
 */
public final class ComputerBench {
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int density = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        Path dataDir = Files.createTempDirectory("hearth-bench").resolve("data");
        try (var hearth = ServedHearth.start(dataDir)) {
            var admin = hearth.admin();
            var curlLike = hearth.blockingAdmin();
            String ws = admin.create("/workspaces", Map.of("name", "bench")).path("workspace").path("id").asText();
            var template = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "template", "image", "hearth/busybox"))
                    .path("computer");
            Path templateBundle = dataDir.resolve("computers").resolve(template.path("id").asText()).resolve("bundle/config.json");

            var hearthCreate = new ArrayList<Double>();
            var rawCreate = new ArrayList<Double>();
            for (int i = 0; i < rounds; i++) {
                rawCreate.add(rawCreateToFirstExec(dataDir, templateBundle, i));
                long t = System.nanoTime();
                String id = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "c" + i, "image", "hearth/busybox"))
                        .path("computer").path("id").asText();
                admin.post("/computers/" + id + "/exec", Map.of("command", List.of("/bin/true")));
                hearthCreate.add((System.nanoTime() - t) / 1e6);
                admin.delete("/computers/" + id);
            }

            String sandbox = template.path("id").asText() + "-0001";
            String root = dataDir.resolve("runsc").toString();
            var hearthExec = new ArrayList<Double>();
            var blockingExec = new ArrayList<Double>();
            var rawExec = new ArrayList<Double>();
            String exec = "/computers/" + template.path("id").asText() + "/exec";
            // Warm both paths first (the JIT, the connection, the store's caches), as a server that
            // has been up for a while is: the first few dozen execs of a fresh JVM are slower.
            for (int i = 0; i < WARM_UP_EXECS; i++) {
                run("runsc", "--root", root, "exec", sandbox, "/bin/true");
                admin.post(exec, Map.of("command", List.of("/bin/true")));
                curlLike.send("POST", exec, TRUE);
            }
            for (int i = 0; i < rounds * 3; i++) {
                long t = System.nanoTime();
                run("runsc", "--root", root, "exec", sandbox, "/bin/true");
                rawExec.add((System.nanoTime() - t) / 1e6);
                t = System.nanoTime();
                admin.post(exec, Map.of("command", List.of("/bin/true")));
                hearthExec.add((System.nanoTime() - t) / 1e6);
                t = System.nanoTime();
                curlLike.send("POST", exec, TRUE);
                blockingExec.add((System.nanoTime() - t) / 1e6);
            }

            System.out.println("| measurement | raw runsc (median ms) | hearth (median ms) | ratio |");
            System.out.println("|---|---|---|---|");
            row("create to first exec", rawCreate, hearthCreate);
            row("exec round trip (/bin/true), JDK HttpClient", rawExec, hearthExec);
            row("exec round trip (/bin/true), blocking client", rawExec, blockingExec);
            density(admin, ws, density);
            admin.delete("/computers/" + template.path("id").asText());
        } finally {
            TestCleanup.removeAll(dataDir);
        }
    }

    private static final String TRUE = "{\"command\": [\"/bin/true\"]}";

    private static final int WARM_UP_EXECS = 100;

    /** Namespace and veth, runsc run, runsc exec: what a script would do for a computer of this bundle. */
    static double rawCreateToFirstExec(Path dataDir, Path templateBundle, int i) throws Exception {
        var raw = RawSandbox.prepare(dataDir, templateBundle, i);
        long t = System.nanoTime();
        raw.network();
        raw.start();
        raw.exec("/bin/true");
        double ms = (System.nanoTime() - t) / 1e6;
        raw.delete();
        raw.removeNetwork();
        return ms;
    }

    private static void density(HearthClient admin, String ws, int target) throws Exception {
        long before = memAvailableKb();
        var ids = new ArrayList<String>();
        for (int i = 0; i < target; i++) {
            ids.add(admin.create("/workspaces/" + ws + "/computers", Map.of("name", "idle" + i, "image", "hearth/busybox",
                    "resources", Map.of("memory_mb", 64))).path("computer").path("id").asText());
        }
        Thread.sleep(3000);
        int answering = 0;
        for (String id : ids) {
            answering += admin.post("/computers/" + id + "/exec", Map.of("command", List.of("/bin/true"))).path("exit_code").asInt() == 0 ? 1 : 0;
        }
        long used = before - memAvailableKb();
        System.out.printf("%nDensity: %d idle computers created, %d answered an exec; host MemAvailable dropped %.0f MiB "
                + "(%.1f MiB each); load average %s%n", target, answering, used / 1024.0, used / 1024.0 / target,
                Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        for (String id : ids) {
            admin.delete("/computers/" + id);
        }
    }

    private static long memAvailableKb() throws Exception {
        return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemAvailable"))
                .map(l -> Long.parseLong(l.replaceAll("\\D", ""))).findFirst().orElseThrow();
    }

    private static void row(String what, List<Double> raw, List<Double> hearth) {
        double r = median(raw);
        double h = median(hearth);
        System.out.printf("| %s | %.1f | %.1f | %.2f (+%.1f ms) |%n", what, r, h, h / r, h - r);
    }

    private static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        return v[v.length / 2];
    }

    static void run(String... command) throws Exception {
        var p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed");
        }
    }

    /** Removes what the bench's server left running, then its files. */
    /** What a bench's servers left on the host, taken down as {@code hearth admin teardown} does. */
    static final class TestCleanup {
        /** Takes the directory down and deletes the directory it is in. */
        static void removeAll(Path dataDir) throws Exception {
            teardown(dataDir);
            Disk.deleteTree(dataDir.getParent());
        }

        /** Sandboxes, namespaces, cgroups, processes, tables and mounts of the directory; its server must have stopped. */
        static void teardown(Path dataDir) throws Exception {
            if (Files.isDirectory(dataDir)) {
                dev.hearth.server.teardown.Teardown.run(dataDir);
            }
        }

        /** Loop mounts under {@code dir} (a raw sandbox's beside a server's), innermost first. */
        static void unmountDisks(Path dir) throws Exception {
            dev.hearth.server.teardown.Teardown.unmountUnder(dir);
        }
    }
}
