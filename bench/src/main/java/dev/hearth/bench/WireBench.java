package dev.hearth.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.server.Config;
import dev.hearth.server.HearthServer;
import dev.hearth.server.databases.DatabaseSettings;
import dev.hearth.server.router.RouterSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A database under PostgreSQL's own load tool, as a user runs it: pgbench TPC-B ({@code -i -s 5},
 * then 10 clients), with a connection per transaction ({@code -C}, 4 clients), and one client's
 * {@code SELECT 1} latency, each through the database's {@code uri} (Hearth's port) and straight to
 * the cluster's private port, interleaved in the same run; and TPC-B through the {@code pooler_uri}.
 * Needs PostgreSQL and pgbouncer (run as root). Arguments: {@code [rounds=2] [seconds=10]}.
 */
public final class WireBench {
    private static final String PGBENCH = "/usr/lib/postgresql/15/bin/pgbench";
    private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+) \\((without initial connection|including reconnection) time");
    private static final Pattern LATENCY = Pattern.compile("latency average = ([0-9.]+) ms");

    private final JsonNode connection;
    private final Path dataDir;
    private final String id;
    private final int seconds;
    private final Map<String, List<Double>> results = new LinkedHashMap<>();

    private WireBench(JsonNode connection, Path dataDir, String id, int seconds) {
        this.connection = connection;
        this.dataDir = dataDir;
        this.id = id;
        this.seconds = seconds;
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        Path dataDir = Files.createTempDirectory("hw");
        var config = Config.defaults(dataDir).withPort(0)
                .withRouter(new RouterSettings("127.0.0.1", 0, "localhost", Optional.empty()))
                .withDatabases(new DatabaseSettings("127.0.0.1", "127.0.0.1", 37600, 37799, 0));
        WireBench bench;
        try (var hearth = HearthServer.start(config)) {
            var admin = new HearthClient(hearth.baseUrl(), KeyFileTokens.read(dataDir.resolve("admin-key.json")));
            String ws = admin.create("/workspaces", Map.of("name", "bench")).path("workspace").path("id").asText();
            String id = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "w", "auto_sleep_seconds", 0))
                    .path("database").path("id").asText();
            var connection = admin.get("/databases/" + id + "/connection").path("connection");
            bench = new WireBench(connection, dataDir, id, seconds);
            bench.pgbench("-i", "-s", "5", "-q", bench.hearth());
            for (int round = 0; round < rounds; round++) {
                bench.round();
            }
        }
        ComputerBench.TestCleanup.teardown(dataDir);
        new ProcessBuilder("rm", "-rf", dataDir.toString()).start().waitFor();
        bench.report();
    }

    private void round() throws Exception {
        String direct = straight();
        String uri = hearth();
        measure("TPC-B, 10 clients: straight (tps)", TPS, "-c", "10", "-j", "2", "-n", direct);
        measure("TPC-B, 10 clients: uri (tps)", TPS, "-c", "10", "-j", "2", "-n", uri);
        measure("TPC-B, connection per transaction, 4 clients: straight (tps)", TPS, "-C", "-c", "4", "-j", "2", "-n", direct);
        measure("TPC-B, connection per transaction, 4 clients: uri (tps)", TPS, "-C", "-c", "4", "-j", "2", "-n", uri);
        Path select = Files.writeString(dataDir.resolve("select1.sql"), "SELECT 1;\n");
        measure("SELECT 1, one client: straight (latency ms)", LATENCY, "-c", "1", "-n", "-f", select.toString(), direct);
        measure("SELECT 1, one client: uri (latency ms)", LATENCY, "-c", "1", "-n", "-f", select.toString(), uri);
        measure("TPC-B, 10 clients: pooler_uri (tps)", TPS, "-c", "10", "-j", "2", "-n", "-M", "simple", pooled());
    }

    private void measure(String name, Pattern pattern, String... args) throws Exception {
        var all = new ArrayList<>(List.of("-T", String.valueOf(seconds)));
        all.addAll(List.of(args));
        String out = pgbench(all.toArray(String[]::new));
        var m = pattern.matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("pgbench said: " + out);
        }
        results.computeIfAbsent(name, k -> new ArrayList<>()).add(Double.parseDouble(m.group(1)));
    }

    /** The database's own port, as its {@code uri} names it. */
    private String hearth() {
        return conninfo(connection.path("port").asInt(), connection.path("database").asText());
    }

    /** The cluster's private port, which only Hearth's own tools know. */
    private String straight() throws Exception {
        var pid = dataDir.resolve("databases/clusters/" + id + "/data/postmaster.pid");
        return conninfo(Integer.parseInt(Files.readAllLines(pid).get(3).strip()), connection.path("database").asText());
    }

    private String pooled() {
        String uri = connection.path("pooler_uri").asText();
        return conninfo(connection.path("pooler_port").asInt(), uri.substring(uri.lastIndexOf('/') + 1, uri.indexOf('?')));
    }

    private String conninfo(int port, String database) {
        return "host=127.0.0.1 port=" + port + " dbname=" + database + " user=" + connection.path("user").asText()
                + " sslmode=require";
    }

    private String pgbench(String... args) throws Exception {
        var command = new ArrayList<>(List.of(PGBENCH));
        command.addAll(List.of(args));
        var builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("PGPASSWORD", connection.path("password").asText());
        var p = builder.start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException("pgbench " + String.join(" ", args) + ": " + out);
        }
        return out;
    }

    private void report() throws Exception {
        System.out.println("| measure | rounds | median |");
        System.out.println("|---|---|---|");
        results.forEach((name, v) -> System.out.printf("| %s | %s | %.3f |%n", name, v, SnapshotBench.median(v)));
        ratio("TPC-B, 10 clients", "tps");
        ratio("TPC-B, connection per transaction, 4 clients", "tps");
        ratio("SELECT 1, one client", "latency ms");
        System.out.printf("%nload average %s%n", Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    }

    private void ratio(String measure, String unit) {
        double uri = SnapshotBench.median(results.get(measure + ": uri (" + unit + ")"));
        double straight = SnapshotBench.median(results.get(measure + ": straight (" + unit + ")"));
        System.out.printf("| %s: uri / straight | | %.3fx |%n", measure, uri / straight);
    }
}
