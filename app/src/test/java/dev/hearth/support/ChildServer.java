package dev.hearth.support;

import dev.hearth.api.Json;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.server.Config;
import dev.hearth.server.HearthServer;
import dev.hearth.server.databases.DatabaseSettings;
import dev.hearth.server.nodes.NodeSettings;
import dev.hearth.server.pool.PoolSettings;
import dev.hearth.server.pool.PooledSandbox;
import dev.hearth.server.router.RouterSettings;
import dev.hearth.server.store.Store;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * A server in a child process, for tests that kill it with SIGKILL: starts on the given data
 * directory and port with the test operation kinds and (but for "serve", which only serves) begins
 * one operation of the named kind (or, for
 * "computer", creates a computer that writes /data; for "warm", one that then sleeps warm; for "pool",
 * one claimed from a warm pool of two, once that is full again), prints its
 * id, and serves until killed.
 */
public final class ChildServer {
    private ChildServer() {
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable t) {
            // Without this the server's threads keep the process alive and the test waits forever.
            t.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        Path dataDir = Path.of(args[0]);
        int port = Integer.parseInt(args[1]);
        String kind = args[2];
        if (kind.equals("node")) {
            serveNode(dataDir, port, args[3], args[4], args[5], Optional.of(args).filter(a -> a.length > 6)
                    .map(a -> Long.parseLong(a[6])));
            return;
        }
        var config = Config.defaults(dataDir).withPort(port)
                .withRouter(new RouterSettings("127.0.0.1", 0, "localhost", Optional.empty()))
                .withOperations(Duration.ofSeconds(2), TestKinds.all())
                .withDatabases(new DatabaseSettings("127.0.0.1", "127.0.0.1", 27400, 27599, 0))
                .withLocalImages(List.of(dataDir.getParent()))
                .withPool(kind.startsWith("pool") ? PoolSettings.parse("hearth/busybox=2") : PoolSettings.NONE);
        if (args.length == 5) {
            config = config.withStore(args[3]).withNodes(NodeSettings.DEFAULT.withName(args[4])
                    .withLease(Duration.ofSeconds(6)));
        }
        if (kind.equals("serve")) {
            HearthServer.start(config).join();
            return;
        }
        var server = HearthServer.start(config);
        var admin = new HearthClient(server.baseUrl(), KeyFileTokens.read(dataDir.resolve("admin-key.json")));
        String ws = admin.create("/workspaces", Map.of("name", "killed")).path("workspace").path("id").asText();
        if (kind.equals("computer") || kind.equals("warm")) {
            String id = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "survivor", "image", "hearth/busybox"))
                    .path("computer").path("id").asText();
            admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c",
                    "echo acknowledged > /data/f; sleep 100000 > /dev/null 2>&1 &")));
            if (kind.equals("warm")) {
                admin.post("/computers/" + id + "/sleep", Map.of());
            }
            System.out.println("computer " + id);
            System.out.flush();
            server.join();
            return;
        }
        if (kind.equals("pool")) {
            System.out.println("pool " + claimedWithPoolFull(server, admin, ws));
            System.out.flush();
            server.join();
            return;
        }
        if (kind.equals("pool-claim-cut")) {
            String claimed = claimedWithPoolFull(server, admin, ws).split(" ")[0];
            System.out.println("pool " + claimCutShort(server, dataDir, claimed));
            System.out.flush();
            server.join();
            return;
        }
        if (kind.equals("restoring")) {
            System.out.println("restoring " + restoreUnderWay(admin, ws));
            System.out.flush();
            server.join();
            return;
        }
        if (kind.equals("databases")) {
            var ids = new ArrayList<String>();
            for (String name : List.of("awake", "asleep")) {
                String id = admin.create("/workspaces/" + ws + "/databases", Map.of("name", name)).path("database")
                        .path("id").asText();
                var c = admin.get("/databases/" + id + "/connection").path("connection");
                try (var jdbc = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + c.path("port").asInt()
                        + "/" + name + "?sslmode=require", name, c.path("password").asText())) {
                    jdbc.createStatement().execute("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('acknowledged')");
                }
                ids.add(id);
            }
            admin.post("/databases/" + ids.get(1) + "/sleep", Map.of());
            admin.post("/databases/" + ids.get(1) + "/reset_credentials", null);
            var awake = admin.get("/databases/" + ids.get(0) + "/connection").path("connection");
            // The awake one's port and password, for a connection while the restarted server reconciles.
            System.out.println("databases " + String.join(" ", ids) + " " + awake.path("port").asInt() + " "
                    + awake.path("password").asText());
            System.out.flush();
            server.join();
            return;
        }
        if (kind.equals("network")) {
            String id = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "walled", "image", "hearth/busybox",
                    "network", Map.of("internet", false))).path("computer").path("id").asText();
            System.out.println("computer " + id);
            System.out.flush();
            server.join();
            return;
        }
        if (kind.equals("everything")) {
            String id = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "left", "image", "hearth/busybox"))
                    .path("computer").path("id").asText();
            String db = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "left")).path("database")
                    .path("id").asText();
            System.out.println("started " + id + " " + db);
            System.out.flush();
            server.join();
            return;
        }
        if (kind.startsWith("crash-")) {
            System.out.println("started " + CrashPaths.run(admin, ws, dataDir, kind.substring("crash-".length())));
            System.out.flush();
            server.join();
            return;
        }
        if (kind.startsWith("computer-")) {
            System.out.println("computer " + interruptedComputer(admin, ws, kind.substring("computer-".length())));
            System.out.flush();
            server.join();
            return;
        }
        var op = server.operations().begin(kind, ws, "thing", Json.mapper().readTree("{\"millis\": 1500}"));
        System.out.println("operation " + op.id());
        System.out.flush();
        server.join();
    }

    /**
     * A node as a host of its own would run it (started in a network namespace of its own by
     * NodeHosts): every listener on {@code address}, on Hearth's default ports, on the shared store,
     * with {@code memoryMb} for awake computers if given.
     * Prints "node BASE_URL" once serving, and serves until stopped (SIGTERM closes it).
     */
    private static void serveNode(Path dataDir, int port, String store, String name, String address,
                                  Optional<Long> memoryMb) throws Exception {
        var config = Config.defaults(dataDir).withListen(address, port)
                .withRouter(new RouterSettings(address, RouterSettings.DEFAULT.port(), "localhost", Optional.empty()))
                .withDatabases(new DatabaseSettings(address, address, DatabaseSettings.DEFAULT.firstPort(),
                        DatabaseSettings.DEFAULT.lastPort(), DatabaseSettings.DEFAULT.poolerPort()))
                .withLocalImages(List.of(dataDir.getParent()))
                .withPool(PoolSettings.NONE)
                .withStore(store).withNodes(NodeSettings.DEFAULT.withName(name).withLease(Duration.ofSeconds(6))
                        .withMemoryMb(memoryMb));
        var server = HearthServer.start(config);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception e) {
                e.printStackTrace();
            }
        }));
        System.out.println("node " + server.baseUrl());
        System.out.flush();
        server.join();
    }

    /** Once the pool is full: a computer claimed from it, and the pool full again; answers "computer pooled pooled". */
    private static String claimedWithPoolFull(HearthServer server, HearthClient admin, String ws) throws Exception {
        readyPool(server, 2);
        String id = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "survivor", "image", "hearth/busybox"))
                .path("computer").path("id").asText();
        admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c", "echo acknowledged > /data/f")));
        return id + " " + String.join(" ", readyPool(server, 2));
    }

    /**
     * Leaves the store as a claim cut short by a crash does: a pooled sandbox's row moved into a
     * computer "cut" (settings as {@code like}'s) that is still creating, its agent never told.
     */
    private static String claimCutShort(HearthServer server, Path dataDir, String like) throws Exception {
        var pooled = TestPool.awaitReady(server::pool, "hearth/busybox", 2).getFirst();
        try (var store = Store.open(null, dataDir)) {
            store.jdbi().useTransaction(h -> {
                h.createUpdate("DELETE FROM pooled_sandboxes WHERE id = :id").bind("id", pooled.id()).execute();
                h.createUpdate("""
                        INSERT INTO computers (id, workspace, name, state, image, env, ports, cpus, memory_mb, pids, disk_mb,
                            protected, auto_sleep_seconds, generation, incarnation, slot, created_at, updated_at, network, launch)
                        SELECT :id, workspace, 'cut', 'creating', image, env, ports, cpus, memory_mb, pids, disk_mb,
                            protected, auto_sleep_seconds, 1, 1, :slot, created_at, updated_at, network, launch
                        FROM computers WHERE id = :like""").bind("id", pooled.id()).bind("slot", pooled.slot().index())
                        .bind("like", like).execute();
            });
        }
        return pooled.id();
    }

    private static List<String> readyPool(HearthServer server, int size) throws InterruptedException {
        return TestPool.awaitReady(server::pool, "hearth/busybox", size).stream().map(PooledSandbox::id).toList();
    }

    /**
     * Creates a computer with 40 MB in its overlay (so that saving it takes a while) and starts to
     * {@code sleep}, {@code wake} or {@code checkpoint} it; answers "id" or "id operation" once under way.
     */
    private static String interruptedComputer(HearthClient admin, String ws, String action) throws Exception {
        String id = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "interrupted", "image", "hearth/busybox"))
                .path("computer").path("id").asText();
        admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c",
                "echo acknowledged > /data/f; head -c 40000000 /dev/urandom > /big")));
        String answer = id;
        switch (action) {
            case "sleep" -> Thread.ofVirtual().start(() -> admin.send("POST", "/computers/" + id + "/sleep", Map.of(), Map.of()));
            case "wake" -> {
                admin.post("/computers/" + id + "/sleep", Map.of());
                Thread.ofVirtual().start(() -> admin.send("POST", "/computers/" + id + "/wake", Map.of(), Map.of()));
            }
            case "checkpoint" -> answer += " " + admin.send("POST", "/computers/" + id + "/checkpoints",
                    Map.of("name", "cut-short"), Map.of("Idempotency-Key", "k")).body().path("operations").get(0).asText();
            default -> throw new IllegalArgumentException(action);
        }
        Thread.sleep(80);
        return answer;
    }

    /**
     * Starts a server on an existing data directory in a child process and returns at once, while it
     * starts (kill it with {@link Process#destroyForcibly}).
     */
    public static Process serve(Path dataDir, int port) throws Exception {
        var command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Dorg.sqlite.tmpdir=" + dataDir.getParent(), "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                ChildServer.class.getName(), dataDir.toString(), String.valueOf(port), "serve");
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dataDir.resolveSibling("child-serve.log").toFile()).start();
    }

    /** Starts a server in a child process, waits until it has begun its work, and kills it with SIGKILL. */
    /**
     * A database "ledger" with rows 1 and 2, committed either side of a moment; a restore to that
     * moment is begun in the background: answers "ID MOMENT" (the caller kills it at some point).
     */
    private static String restoreUnderWay(HearthClient admin, String ws) throws Exception {
        String id = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "ledger")).path("database")
                .path("id").asText();
        var c = admin.get("/databases/" + id + "/connection").path("connection");
        String moment;
        try (var jdbc = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + c.path("port").asInt()
                + "/ledger?sslmode=require", "ledger", c.path("password").asText())) {
            jdbc.createStatement().execute("CREATE TABLE entries (n int); INSERT INTO entries VALUES (1)");
            Thread.sleep(50);
            moment = java.time.Instant.now().toString();
            Thread.sleep(50);
            jdbc.createStatement().execute("INSERT INTO entries VALUES (2)");
        }
        Thread.ofVirtual().start(() -> admin.post("/databases/" + id + "/restore", Map.of("at", moment)));
        return id + " " + moment;
    }

    public static String startAndKill(Path dataDir, int port, String kind) throws Exception {
        return startAndKill(dataDir, port, kind, new String[0]);
    }

    /** The same as node {@code storeAndNode[1]} on the PostgreSQL store {@code storeAndNode[0]} (a 6 s lease). */
    public static String startAndKill(Path dataDir, int port, String kind, String... storeAndNode) throws Exception {
        return startAndKill(dataDir, port, kind, Duration.ZERO, storeAndNode);
    }

    /** The same, killed {@code after} its line (a random point of the work it began). */
    public static String startAndKill(Path dataDir, int port, String kind, Duration after, String... storeAndNode)
            throws Exception {
        // SQLite's native library is unpacked per JVM and a JVM killed with SIGKILL leaves it: keep it with the test's files.
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Dorg.sqlite.tmpdir=" + dataDir.getParent(), "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                ChildServer.class.getName(), dataDir.toString(), String.valueOf(port), kind));
        command.addAll(List.of(storeAndNode));
        Path errors = dataDir.resolveSibling("child-server.err");
        var child = new ProcessBuilder(command).redirectError(errors.toFile()).start();
        try (var out = new BufferedReader(new InputStreamReader(child.getInputStream()))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith("operation ") || line.startsWith("computer ") || line.startsWith("databases ")
                        || line.startsWith("started ") || line.startsWith("pool ") || line.startsWith("restoring ")) {
                    Thread.sleep(after.toMillis());
                    child.destroyForcibly().waitFor();
                    return line.substring(line.indexOf(' ') + 1);
                }
            }
        }
        int exit = child.waitFor();
        throw new AssertionError("the child server never began its operation (exit " + exit + "): "
                + Files.readString(errors).lines().filter(l -> !l.contains(":INFO :")).limit(20).toList());
    }

    /**
     * A free loopback port below the kernel's ephemeral range (32768 and up by default). A test that
     * starts a server on it again after a kill must still find it free; a port from that range can
     * be taken meanwhile by any outgoing connection (the leftover clusters', the next server's), and
     * a connection's port blocks a listener's bind: it did once in CI.
     */
    public static int freePort() throws Exception {
        var random = new Random();
        for (int tries = 0; tries < 200; tries++) {
            int port = 20_000 + random.nextInt(12_000);
            try (var socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                return port;
            } catch (BindException taken) {
                // another one
            }
        }
        throw new IllegalStateException("no free port in 20000-31999");
    }
}
