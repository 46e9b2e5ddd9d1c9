package dev.hearth.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.Json;
import dev.hearth.client.HearthClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the hop between nodes costs. Two nodes, a and b (each {@code hearth serve} in its own JVM),
 * share a PostgreSQL store (a throwaway cluster from Debian's package). A computer
 * runs on b (a is given too little memory to take it), and interleaved on it: exec through b's API
 * (where it runs) and through a's (relayed to b), and an HTTP GET through b's router and through a's
 * (relayed to b's router); all with curl-like blocking clients. Then a drain of b moves a sleeping
 * computer with {@code mib} MiB in /data to a ({@link DrainMove}). Needs root, runsc and PostgreSQL.
 * Arguments: {@code [calls=200] [warm=100] [mib=200]}.
 */
public final class NodeHopBench {
    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int warm = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int mib = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        // Short: a cluster's Unix socket path, under the store host's data directory, must stay under 108 bytes.
        Path root = Files.createTempDirectory("h");
        // The store host's PostgreSQL runs as the postgres user, which must pass through to its data directory.
        Files.setPosixFilePermissions(root, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        int storePort = ServedHearth.freePort();
        Process store = storeCluster(root.resolve("pg"), storePort);
        String url = "postgresql://hearth@127.0.0.1:" + storePort + "/postgres";
        try (var a = ServedHearth.start(root.resolve("a"), "--store", url, "--node", "a", "--node-memory-mb", "64");
             var b = joinNode(root.resolve("a"), root.resolve("b"), url, "b")) {
            String ws = measure(a, b, calls, warm);
            DrainMove.measure(root, url, ws, a, b, mib);
        } catch (Exception e) {
            for (String node : List.of("a", "b")) {
                System.err.println("--- " + node + ".log, warnings and errors:");
                Files.readString(root.resolve(node + ".log")).lines().filter(l -> !l.contains(":INFO :")).limit(40)
                        .forEach(System.err::println);
                try (var logs = Files.find(root.resolve(node).resolve("computers"), 2,
                        (p, a) -> p.getFileName().toString().matches("runsc.*\\.(log|out)"))) {
                    for (var log : logs.toList()) {
                        System.err.println("--- " + log + ", its end:");
                        var lines = Files.readAllLines(log);
                        lines.subList(Math.max(0, lines.size() - 40), lines.size()).forEach(System.err::println);
                    }
                } catch (java.io.IOException | RuntimeException none) {
                    // no computers there
                }
            }
            throw e;
        } finally {
            // b's first: removeAll deletes the directory both nodes' data directories are in.
            ComputerBench.TestCleanup.teardown(root.resolve("b"));
            ComputerBench.TestCleanup.removeAll(root.resolve("a"));
            store.destroy();
            store.waitFor();
        }
    }

    private static final String[] AS_POSTGRES = {"setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"};

    /** The store: a throwaway PostgreSQL from Debian's package (initdb, trust on loopback), once it says ready. */
    static Process storeCluster(Path dir, int port) throws Exception {
        return storeCluster(dir, port, "127.0.0.1", null);
    }

    /** The same listening on {@code listen} (addresses, comma separated), trusting {@code network} too when given. */
    static Process storeCluster(Path dir, int port, String listen, String network) throws Exception {
        Path bin;
        try (var versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            bin = versions.max(java.util.Comparator.naturalOrder()).orElseThrow().resolve("bin");
        }
        Files.createDirectories(dir);
        Files.setOwner(dir, dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres"));
        Path data = dir.resolve("data");
        var initdb = new ProcessBuilder(postgres(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "hearth",
                "--auth=trust", "-N")).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (initdb.waitFor() != 0) {
            throw new IllegalStateException("initdb failed");
        }
        if (network != null) {
            Files.writeString(data.resolve("pg_hba.conf"), "host all all " + network + " trust\n",
                    java.nio.file.StandardOpenOption.APPEND);
        }
        var p = new ProcessBuilder(postgres(bin.resolve("postgres").toString(), "-D", data.toString(), "-c", "port=" + port,
                "-c", "listen_addresses=" + listen, "-c", "unix_socket_directories=" + data,
                "-c", "synchronous_commit=" + (System.getenv().getOrDefault("STORE_SYNC", "on"))))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        for (int i = 0; i < 3000; i++) {
            var lines = Files.exists(data.resolve("postmaster.pid")) ? Files.readAllLines(data.resolve("postmaster.pid"))
                    : List.<String>of();
            if (lines.size() >= 8 && lines.get(7).strip().equals("ready")) {
                return p;
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("the store's postgres did not start");
    }

    private static List<String> postgres(String... command) {
        var full = new ArrayList<>(List.of(AS_POSTGRES));
        full.addAll(List.of(command));
        return full;
    }

    /** Node {@code name}, with the first node's keys and the admin's key file made out to its URL, as an operator sets one up. */
    static ServedHearth joinNode(Path first, Path dir, String store, String name, String... extra) throws Exception {
        int port = ServedHearth.freePort();
        replicaDir(first, dir, "http://127.0.0.1:" + port + "/v1");
        var args = new ArrayList<>(List.of("--store", store, "--node", name));
        args.addAll(List.of(extra));
        return ServedHearth.start(dir, port, args.toArray(String[]::new));
    }

    /** A second node's directory: the first's keys, and the admin's key file made out to {@code url}. */
    static Path replicaDir(Path first, Path dir, String url) throws Exception {
        Files.createDirectories(dir);
        for (String shared : List.of("signing-keys.json", "encryption-keys.json")) {
            Files.copy(first.resolve(shared), dir.resolve(shared));
        }
        var key = (ObjectNode) Json.mapper().readTree(first.resolve("admin-key.json").toFile());
        key.put("audience", url).put("token_url", url + "/auth/token");
        Files.writeString(dir.resolve("admin-key.json"), key.toString());
        return dir;
    }

    /** Answers the workspace it made. */
    private static String measure(ServedHearth a, ServedHearth b, int calls, int warm) throws Exception {
        var admin = a.admin();
        var workspace = admin.create("/workspaces", Map.of("name", "hop")).path("workspace");
        String ws = workspace.path("id").asText();
        var computer = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "c", "image", "hearth/busybox",
                "command", List.of("httpd", "-f", "-p", "8080", "-h", "/data"),
                "ports", List.of(Map.of("target", 8080, "published", 80)))).path("computer");
        if (!computer.path("node").asText().equals("b")) {
            throw new IllegalStateException("the computer was placed on " + computer.path("node") + ", not b");
        }
        String id = computer.path("id").asText();
        admin.upload("/computers/" + id + "/files?path=/data/index.html", "text/plain",
                () -> new java.io.ByteArrayInputStream("hello\n".getBytes()));
        String exec = "{\"command\": [\"/bin/true\"]}";
        var viaA = a.blockingAdmin();
        var viaB = b.blockingAdmin();
        var routerA = router(admin, id);
        var routerB = router(b.admin(), id);
        var steps = new LinkedHashMap<String, Interleaved.Step>();
        steps.put("exec through b's API (local)", () -> viaB.send("POST", "/computers/" + id + "/exec", exec));
        steps.put("exec through a's API (relayed to b)", () -> viaA.send("POST", "/computers/" + id + "/exec", exec));
        steps.put("GET through b's router (local)", () -> ok(routerB.send("GET", "/index.html", List.of(), null)));
        steps.put("GET through a's router (relayed to b)", () -> ok(routerA.send("GET", "/index.html", List.of(), null)));
        var times = Interleaved.time(steps, warm, calls);
        System.out.println("| step | median ms | p90 ms |");
        System.out.println("|---|---|---|");
        times.forEach((step, values) -> System.out.printf("| %s | %.2f | %.2f |%n", step, pct(values, 50),
                pct(values, 90)));
        var names = new ArrayList<>(times.keySet());
        System.out.printf("%nhop: exec +%.2f ms, router GET +%.2f ms (relayed minus local medians)%n",
                pct(times.get(names.get(1)), 50) - pct(times.get(names.get(0)), 50),
                pct(times.get(names.get(3)), 50) - pct(times.get(names.get(2)), 50));
        System.out.printf("load average %s%n", Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        admin.delete("/computers/" + id);
        return ws;
    }

    /** A client of the router of the node {@code api} belongs to: the computer's URL as that node gives it. */
    private static RawHttp router(HearthClient api, String id) {
        var url = java.net.URI.create(api.get("/computers/" + id).path("computer").path("url").asText());
        return new RawHttp("127.0.0.1", url.getPort(), url.getAuthority());
    }

    private static void ok(RawHttp.Answer answer) {
        if (answer.status() != 200) {
            throw new IllegalStateException("router answered " + answer.status() + ": " + answer.text());
        }
    }

    private static double pct(List<Double> values, int p) {
        return Interleaved.percentile(values, p);
    }
}
