package dev.hearth.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.server.Config;
import dev.hearth.server.HearthServer;
import dev.hearth.server.databases.DatabaseSettings;
import dev.hearth.server.router.RouterSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Databases beside the raw PostgreSQL operations, in one run: create (API) vs template copy +
 * start; wake-on-connect to the first query vs starting postgres by hand on a copy of the same
 * cluster and connecting to it directly; a query round trip through the proxy vs straight to the
 * cluster's private port; reset asleep and awake; checkpoint awake vs {@code pg_basebackup} and
 * asleep vs {@code cp -a}; branch to first query vs copying the stopped source and starting it by hand.
 * Needs PostgreSQL and pgbouncer (run as root). Arguments: {@code [rounds=10] [queries=2000] [mib=0]},
 * where mib is the size of a table written into the measured database first.
 */
public final class DatabaseBench {
    private static final String PG = "/usr/lib/postgresql/15/bin/";
    private static final String[] AS_POSTGRES = {"setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"};

    private final HearthClient admin;
    private final String ws;
    private final String id;
    private final Path root;
    private final Path raw;
    private final Map<String, List<Double>> times = new LinkedHashMap<>();
    private JsonNode connection;
    private boolean keep;

    private DatabaseBench(HearthClient admin, String ws, String id, Path root) {
        this.admin = admin;
        this.ws = ws;
        this.id = id;
        this.root = root;
        this.raw = root.resolve("raw");
        this.connection = admin.get("/databases/" + id + "/connection").path("connection");
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int queries = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        int mib = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        Path dataDir = Files.createTempDirectory("hearth-db-bench");
        var config = Config.defaults(dataDir).withPort(0)
                .withRouter(new RouterSettings("127.0.0.1", 0, "localhost", Optional.empty()))
                .withDatabases(new DatabaseSettings("127.0.0.1", "127.0.0.1", 37400, 37599, 0));
        DatabaseBench bench;
        try (var hearth = HearthServer.start(config)) {
            var admin = new HearthClient(hearth.baseUrl(), KeyFileTokens.read(dataDir.resolve("admin-key.json")));
            String ws = admin.create("/workspaces", Map.of("name", "bench")).path("workspace").path("id").asText();
            String id = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "b")).path("database")
                    .path("id").asText();
            bench = new DatabaseBench(admin, ws, id, dataDir.resolve("databases"));
            fill(bench.connect(bench.port()), mib);
            for (int i = 0; i < rounds + 1; i++) {
                bench.keep = i > 0; // the first round warms up
                bench.create(i);
                bench.wakeOnConnect();
                bench.resets();
                bench.checkpointAndBranch();
            }
            bench.relay(queries);
        }
        ComputerBench.TestCleanup.teardown(dataDir);
        sh("rm", "-rf", dataDir.toString());
        System.out.println("| step | median ms | p90 ms |");
        System.out.println("|---|---|---|");
        bench.times.forEach((step, v) -> System.out.printf("| %s | %.3f | %.3f |%n", step, pct(v, 50), pct(v, 90)));
        System.out.printf("%nload average %s%n", Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    }

    /** Create through the API against a template copy plus a start of postgres by hand. */
    private void create(int round) throws Exception {
        long t = System.nanoTime();
        String made = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "n" + round))
                .path("database").path("id").asText();
        record("create (API; asleep after)", t);
        Path template;
        try (var templates = Files.list(root.resolve("templates"))) {
            template = templates.filter(p -> !p.toString().endsWith(".building")).findFirst().orElseThrow();
        }
        t = System.nanoTime();
        sh("cp", "-a", template.toString(), raw.toString());
        var started = start(raw, 37900);
        record("raw: template copy + start", t);
        stop(started, raw);
        admin.delete("/databases/" + made);
    }

    /** Wake on connect through Hearth's port, and a start by hand on a copy of the same stopped cluster. */
    private void wakeOnConnect() throws Exception {
        admin.post("/databases/" + id + "/sleep", Map.of());
        sh("cp", "-a", cluster().resolve("data").toString(), raw.toString());
        long t = System.nanoTime();
        query(connect(port()), "SELECT 1");
        record("wake on connect to first query (uri)", t);
        t = System.nanoTime();
        var started = start(raw, 37901);
        query(connect(37901), "SELECT 1");
        record("raw: start postgres + first query", t);
        stop(started, raw);
    }

    /**
     * Reset awake then asleep (the database is awake from the wake before), each beside the same
     * statements run by hand: psql over the socket, postgres --single on a copy.
     */
    private void resets() throws Exception {
        long t = System.nanoTime();
        connection = admin.post("/databases/" + id + "/reset_credentials", null).path("connection");
        record("reset awake (API)", t);
        t = System.nanoTime();
        rawResetAwake();
        record("raw: ALTER ROLE + end the role's sessions (psql)", t);

        admin.post("/databases/" + id + "/sleep", Map.of());
        t = System.nanoTime();
        connection = admin.post("/databases/" + id + "/reset_credentials", null).path("connection");
        record("reset asleep (API answer)", t);
        while (admin.get("/databases/" + id + "/connection").path("connection").path("reset_pending").asBoolean()) {
            Thread.sleep(1);
        }
        record("reset asleep (API, until applied to the stopped cluster)", t);
        sh("cp", "-a", cluster().resolve("data").toString(), raw.toString());
        t = System.nanoTime();
        shIn(alterRole() + ";\n", asPostgres(PG + "postgres", "--single", "-c", "exit_on_error=on", "-D",
                raw.toString(), "postgres"));
        record("raw: postgres --single ALTER ROLE on the stopped cluster", t);
        sh("rm", "-rf", raw.toString());
    }

    /**
     * Checkpoints the database awake and asleep, then branches from the awake checkpoint (the one that
     * needs recovery), each beside the same step by hand. Leaves the database awake.
     */
    private void checkpointAndBranch() throws Exception {
        // Explicit wakes: connections may wake a database only 10 times a minute.
        admin.post("/databases/" + id + "/wake", Map.of());
        long t = System.nanoTime();
        String awake = await(admin.create("/databases/" + id + "/checkpoints", Map.of()));
        record("checkpoint awake (API, to the operation's end)", t);
        sh("install", "-d", "-m", "0700", "-o", "postgres", "-g", "postgres", raw.toString());
        t = System.nanoTime();
        sh(asPostgres(PG + "pg_basebackup", "-h", cluster().resolve("run").toString(), "-p", privatePort(), "-U",
                "postgres", "-D", raw.toString(), "-X", "stream", "-c", "fast", "--no-manifest"));
        record("raw: pg_basebackup -X stream -c fast", t);
        sh("rm", "-rf", raw.toString());

        admin.post("/databases/" + id + "/sleep", Map.of());
        t = System.nanoTime();
        String asleep = await(admin.create("/databases/" + id + "/checkpoints", Map.of()));
        record("checkpoint asleep (API, to the operation's end)", t);
        t = System.nanoTime();
        sh("cp", "-a", cluster().resolve("data").toString(), raw.toString());
        record("raw: cp -a of the stopped cluster", t);
        sh("rm", "-rf", raw.toString());

        branch(awake);
        await(admin.delete("/databases/" + id + "/checkpoints/" + awake));
        await(admin.delete("/databases/" + id + "/checkpoints/" + asleep));
        admin.post("/databases/" + id + "/wake", Map.of());
    }

    /** A branch to its first query, against copying the stopped source and starting it by hand. */
    private void branch(String checkpoint) throws Exception {
        long t = System.nanoTime();
        var branch = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "branch",
                "from_checkpoint", checkpoint)).path("database");
        var bc = admin.get("/databases/" + branch.path("id").asText() + "/connection").path("connection");
        query(jdbc(bc.path("port").asInt(), bc), "SELECT 1");
        record("branch from the awake checkpoint to first query (API)", t);
        t = System.nanoTime();
        // The source sleeps (since the asleep checkpoint): its data directory is a stopped cluster.
        sh("cp", "-a", cluster().resolve("data").toString(), raw.toString());
        var started = start(raw, 37902);
        query(connect(37902), "SELECT 1");
        record("raw: cp -a of the stopped cluster + start + first query", t);
        stop(started, raw);
        admin.delete("/databases/" + branch.path("id").asText());
    }

    /** One connection through the proxy, one to the private port, interleaved; the first 10% dropped. */
    private void relay(int queries) throws Exception {
        try (var proxied = connect(port()); var direct = connect(Integer.parseInt(privatePort()))) {
            var through = new ArrayList<Double>();
            var straight = new ArrayList<Double>();
            for (int i = 0; i < queries; i++) {
                long t = System.nanoTime();
                proxied.createStatement().executeQuery("SELECT 1").close();
                through.add((System.nanoTime() - t) / 1e6);
                t = System.nanoTime();
                direct.createStatement().executeQuery("SELECT 1").close();
                straight.add((System.nanoTime() - t) / 1e6);
            }
            times.put("SELECT 1 through the proxy", through.subList(queries / 10, queries));
            times.put("raw: SELECT 1 straight to the cluster", straight.subList(queries / 10, queries));
        }
    }

    /** Sets the role's current password again and ends its sessions, as Hearth's awake reset does. */
    private void rawResetAwake() throws Exception {
        String user = connection.path("user").asText();
        for (String sql : List.of(alterRole(), "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                + "WHERE usename = '" + user + "'")) {
            sh(asPostgres(PG + "psql", "-X", "-q", "-h", cluster().resolve("run").toString(), "-p", privatePort(),
                    "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-c", sql));
        }
    }

    private String alterRole() {
        return "ALTER ROLE " + connection.path("user").asText() + " PASSWORD '" + connection.path("password").asText()
                + "'";
    }

    private Path cluster() {
        return root.resolve("clusters/" + id);
    }

    private int port() {
        return connection.path("port").asInt();
    }

    private String privatePort() throws Exception {
        return Files.readAllLines(cluster().resolve("data/postmaster.pid")).get(3).strip();
    }

    private Connection connect(int port) throws Exception {
        return jdbc(port, connection);
    }

    private void record(String step, long start) {
        if (keep) {
            times.computeIfAbsent(step, k -> new ArrayList<>()).add((System.nanoTime() - start) / 1e6);
        }
    }

    private static String[] asPostgres(String... command) {
        var full = new ArrayList<>(List.of(AS_POSTGRES));
        full.addAll(List.of(command));
        return full.toArray(String[]::new);
    }

    /** Waits for the answer's operation to succeed and returns the checkpoint's id. */
    private String await(JsonNode accepted) {
        String op = accepted.path("operations").get(0).asText();
        var done = admin.get("/operations/" + op + "?wait=60").path("operation");
        if (!done.path("state").asText().equals("succeeded")) {
            throw new IllegalStateException("operation failed: " + done);
        }
        return accepted.path("checkpoint").path("id").asText();
    }

    /** Writes about {@code mib} MiB into a table, so checkpoints and branches copy real data. */
    private static void fill(Connection connection, int mib) throws Exception {
        try (connection) {
            connection.createStatement().execute("CREATE TABLE filler (n int, pad text)");
            connection.createStatement().execute("INSERT INTO filler SELECT n, repeat('x', 1000) "
                    + "FROM generate_series(1, " + mib * 1000 + ") n");
        }
    }

    /** postgres started by hand with the settings Hearth gives it, once it says ready. */
    private Process start(Path data, int port) throws Exception {
        var p = new ProcessBuilder(asPostgres(PG + "postgres", "-D", data.toString(), "-c", "port=" + port, "-c", "listen_addresses=127.0.0.1",
                "-c", "unix_socket_directories=" + data, "-c", "hba_file=" + root.resolve("config/pg_hba.conf"),
                "-c", "ssl=on", "-c", "ssl_cert_file=" + root.resolve("tls/server.crt"),
                "-c", "ssl_key_file=" + root.resolve("tls/server.key"), "-c", "shared_buffers=16MB",
                "-c", "max_connections=100", "-c", "max_worker_processes=4", "-c", "max_logical_replication_workers=0"))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return ready(p, data, () -> "");
    }

    /** The postgres {@code p} of {@code data} once its postmaster.pid says ready (pg_ctl's own test); {@code log} says why not. */
    static Process ready(Process p, Path data, java.util.concurrent.Callable<String> log) throws Exception {
        Path pid = data.resolve("postmaster.pid");
        while (true) {
            try {
                var lines = Files.readAllLines(pid);
                if (lines.size() >= 8 && lines.get(7).strip().equals("ready")) {
                    return p;
                }
            } catch (IOException notYet) {
                // not written yet
            }
            if (!p.isAlive()) {
                throw new IllegalStateException("raw postgres did not start" + log.call());
            }
            Thread.sleep(1);
        }
    }

    private static void stop(Process p, Path data) throws Exception {
        sh("kill", "-INT", String.valueOf(p.pid()));
        p.waitFor();
        sh("rm", "-rf", data.toString());
    }

    private static Connection jdbc(int port, JsonNode c) throws Exception {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + c.path("database").asText()
                + "?sslmode=require", c.path("user").asText(), c.path("password").asText());
    }

    private static void query(Connection c, String sql) throws Exception {
        try (c) {
            c.createStatement().executeQuery(sql).close();
        }
    }

    private static void sh(String... command) throws Exception {
        shIn("", command);
    }

    private static void shIn(String input, String... command) throws Exception {
        var p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            in.write(input.getBytes());
        }
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + ": " + out);
        }
    }

    private static double pct(List<Double> values, int p) {
        var sorted = values.stream().sorted().toList();
        return sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100));
    }
}
