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
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A database's history beside point-in-time recovery by hand, in one run. For each size of WAL written
 * after the source's newest base (its first): Hearth's branch at a moment just after the writes, and
 * its restore in place to it, each to a first {@code SELECT count(*)}; and the floor: a copy of a stopped
 * base, {@code recovery.signal}, {@code restore_command} (archive, then the source's live pg_wal, as
 * Hearth does), {@code recovery_target_time} with promote, {@code hot_standby=off}, the same query. A
 * commit follows each moment, as a mistake to undo would. Needs PostgreSQL (run as root). Arguments:
 * {@code [rounds=3] [mib=0,100]}; over 256 is allowed but off by default: Hearth bounds replay there.
 */
public final class DatabaseHistoryBench {
    private static final String PG = "/usr/lib/postgresql/15/bin/";
    private static final String[] AS_POSTGRES = {"setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"};
    private static final DateTimeFormatter TARGET =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSxxx").withZone(ZoneOffset.UTC);
    private static final String BRANCH = "hearth: branch at a moment";
    private static final String RESTORE = "hearth: restore in place";
    private static final String RAW = "raw: base copy + recovery to the moment + first query";
    private static final String RAW_IN_PLACE = "raw in place: that recovery, both stop, it restarts on the source's port + first query";
    private static final int SOURCE_PORT = 38900;
    private static final int RECOVERED_PORT = 38901;

    private final HearthClient admin;
    private final String ws;
    private final Path root;
    private final Path raw;
    private final Map<String, List<Double>> times = new LinkedHashMap<>();
    private final Map<String, Double> walMib = new LinkedHashMap<>();
    private final Map<Integer, String> bases = new LinkedHashMap<>();
    private final List<Process> started = new ArrayList<>();
    private boolean keep;

    private DatabaseHistoryBench(HearthClient admin, String ws, Path root) {
        this.admin = admin;
        this.ws = ws;
        this.root = root;
        this.raw = root.resolve("raw-history");
    }

    public static void main(String[] args) throws Exception {
        var given = Arrays.stream(args).map(a -> a.split("=", 2)).collect(Collectors.toMap(a -> a[0], a -> a[1]));
        int rounds = Integer.parseInt(given.getOrDefault("rounds", "3"));
        int[] mibs = Arrays.stream(given.getOrDefault("mib", "0,100").split(",")).mapToInt(Integer::parseInt).toArray();
        Path dataDir = Files.createTempDirectory("hearth-hist");
        var config = Config.defaults(dataDir).withPort(0)
                .withRouter(new RouterSettings("127.0.0.1", 0, "localhost", Optional.empty()))
                .withDatabases(new DatabaseSettings("127.0.0.1", "127.0.0.1", 38400, 38499, 0));
        DatabaseHistoryBench bench = null;
        try (var hearth = HearthServer.start(config)) {
            var admin = new HearthClient(hearth.baseUrl(), KeyFileTokens.read(dataDir.resolve("admin-key.json")));
            String ws = admin.create("/workspaces", Map.of("name", "bench")).path("workspace").path("id").asText();
            bench = new DatabaseHistoryBench(admin, ws, dataDir.resolve("databases"));
            bench.initdb();
            for (int i = 0; i < rounds + 1; i++) {
                bench.keep = i > 0; // the first round warms up, at the first size only
                for (int mib : i == 0 ? new int[] {mibs[0]} : mibs) {
                    bench.hearth(mib, i);
                    bench.byHand(mib);
                }
            }
        } finally {
            if (bench != null) {
                bench.stopAll();
            }
            ComputerBench.TestCleanup.teardown(dataDir);
            sh("rm", "-rf", dataDir.toString());
        }
        bench.report(mibs);
        System.out.printf("load average %s%n", Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    }

    /** A new database, written to, then branched at a moment after the writes and restored in place to it. */
    private void hearth(int mib, int round) throws Exception {
        String id = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "h" + mib + "-" + round))
                .path("database").path("id").asText();
        admin.post("/databases/" + id + "/wake", Map.of());
        var connection = admin.get("/databases/" + id + "/connection").path("connection");
        Instant at;
        try (var c = jdbc(connection.path("port").asInt(), connection)) {
            at = write(c, mib, "hearth");
        }
        bases.merge(mib, admin.get("/databases/" + id + "/history").path("history").path("bases").asText(),
                (seen, now) -> seen.contains(now) ? seen : seen + "," + now);

        long t = System.nanoTime();
        var branch = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "b" + mib + "-" + round,
                "from_database", id, "at", at.toString())).path("database");
        var bc = admin.get("/databases/" + branch.path("id").asText() + "/connection").path("connection");
        check(jdbc(bc.path("port").asInt(), bc), mib);
        record(BRANCH, mib, t);
        admin.delete("/databases/" + branch.path("id").asText());

        t = System.nanoTime();
        var restored = admin.post("/databases/" + id + "/restore", Map.of("at", at.toString()));
        check(jdbc(connection.path("port").asInt(), connection), mib); // same port and password
        record(RESTORE, mib, t);
        admin.delete("/databases/" + restored.path("backup").path("id").asText());
        admin.delete("/databases/" + id);
    }

    /** The same by hand: a cluster from a stopped base, written to, then recovered from the base to the moment. */
    private void byHand(int mib) throws Exception {
        Path pristine = raw.resolve("pristine"), source = raw.resolve("source"), archive = raw.resolve("archive");
        Path recovered = raw.resolve("recovered");
        sh("cp", "-a", "--reflink=auto", pristine.toString(), source.toString());
        sh(asPostgres("mkdir", "-m", "0700", archive.toString()));
        var sourcePostgres = start(source, SOURCE_PORT, "-c", "archive_mode=on",
                "-c", "archive_command=cp %p " + archive + "/%f.part && mv " + archive + "/%f.part " + archive + "/%f");
        Instant at;
        try (var c = rawJdbc(SOURCE_PORT)) {
            at = write(c, mib, "raw");
        }

        long t = System.nanoTime();
        // The base is the stopped cluster the source was copied from, as Hearth's first base is.
        sh("cp", "-a", "--reflink=auto", pristine.toString(), recovered.toString());
        Files.writeString(recovered.resolve("recovery.signal"), ""); // as Hearth writes it (root's, readable)
        var recoveredPostgres = start(recovered, RECOVERED_PORT,
                "-c", "restore_command=cp " + archive + "/%f %p 2>/dev/null || cp " + source.resolve("pg_wal") + "/%f %p",
                "-c", "recovery_target_time=" + TARGET.format(at), "-c", "recovery_target_inclusive=on",
                "-c", "recovery_target_action=promote", "-c", "hot_standby=off");
        long q = System.nanoTime();
        check(rawJdbc(RECOVERED_PORT), mib);
        record(RAW, mib, t);
        // In place, as Hearth's restore ends (without the query above): both stop, the old directory is kept aside.
        long queried = System.nanoTime() - q;
        halt(sourcePostgres);
        halt(recoveredPostgres);
        Files.move(source, raw.resolve("before"));
        Files.move(recovered, source);
        var inPlace = start(source, SOURCE_PORT);
        check(rawJdbc(SOURCE_PORT), mib);
        record(RAW_IN_PLACE, mib, t + queried);
        halt(inPlace);
        sh("rm", "-rf", archive.toString(), source.toString(), raw.resolve("before").toString());
    }

    /** About {@code mib} MiB of WAL (rows of 1000 bytes), the moment after, then a later commit (a table). */
    private Instant write(Connection c, int mib, String side) throws Exception {
        var s = c.createStatement();
        String before = one(s, "SELECT pg_current_wal_lsn()::text");
        s.execute("CREATE TABLE t AS SELECT g, repeat('x', 1000) AS pad FROM generate_series(1, " + mib * 1000 + ") g");
        walMib.put(side + " " + mib, Long.parseLong(one(s, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '" + before
                + "')::bigint")) / 1048576.0);
        Instant at = Instant.now();
        Thread.sleep(20);
        s.execute("CREATE TABLE later (n int)");
        return at;
    }

    /** The first query on the recovered state: every row written before the moment, nothing after it. */
    private static void check(Connection c, int mib) throws Exception {
        try (c) {
            var rows = c.createStatement().executeQuery("SELECT count(*), to_regclass('later') IS NULL FROM t");
            rows.next();
            if (rows.getLong(1) != mib * 1000L || !rows.getBoolean(2)) {
                throw new IllegalStateException("recovered to the wrong moment: " + rows.getLong(1) + " rows, "
                        + (rows.getBoolean(2) ? "without" : "with") + " the later table");
            }
        }
    }

    /** The stopped cluster every hand-made source is copied from, and its base. */
    private void initdb() throws Exception {
        sh("install", "-d", "-m", "0700", "-o", "postgres", "-g", "postgres", raw.toString());
        sh(asPostgres(PG + "initdb", "-D", raw.resolve("pristine").toString(), "-U", "postgres", "--auth-local=trust",
                "--auth-host=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-instructions"));
    }

    /** postgres started by hand with the settings Hearth gives its clusters, once it says ready. */
    private Process start(Path data, int port, String... more) throws Exception {
        var args = new ArrayList<>(List.of(asPostgres(PG + "postgres", "-D", data.toString(), "-c", "port=" + port,
                "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + data,
                "-c", "ssl=on", "-c", "ssl_cert_file=" + root.resolve("tls/server.crt"),
                "-c", "ssl_key_file=" + root.resolve("tls/server.key"), "-c", "shared_buffers=16MB",
                "-c", "max_connections=100", "-c", "max_worker_processes=4", "-c", "max_logical_replication_workers=0",
                "-c", "max_wal_size=256MB", "-c", "recovery_init_sync_method=syncfs")));
        args.addAll(List.of(more));
        var p = new ProcessBuilder(args).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(raw.resolve("postgres.log").toFile())).start();
        started.add(p);
        return DatabaseBench.ready(p, data, () -> ": " + Files.readString(raw.resolve("postgres.log")));
    }

    private void halt(Process p) throws Exception {
        sh("kill", "-INT", String.valueOf(p.pid()));
        started.remove(p.onExit().get());
    }

    /** Every postgres this harness started and still runs (after a failure), then its files. */
    private void stopAll() throws Exception {
        for (var p : started) {
            if (p.isAlive() && !(sh("kill", "-INT", String.valueOf(p.pid())) && p.waitFor(20, TimeUnit.SECONDS))) {
                p.destroyForcibly().waitFor();
            }
        }
        sh("rm", "-rf", raw.toString());
    }

    private void report(int[] mibs) {
        System.out.println("| MiB written after the base | WAL MiB (Hearth / raw) | bases at the branch | step | median ms "
                + "| rounds ms | Hearth / raw |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (int mib : mibs) {
            for (String step : List.of(BRANCH, RESTORE, RAW, RAW_IN_PLACE)) {
                System.out.printf("| %d | %.1f / %.1f | %s | %s | %.1f | %s | %s |%n", mib, walMib.get("hearth " + mib),
                        walMib.get("raw " + mib), bases.get(mib), step, median(mib, step),
                        times.get(key(step, mib)).stream().map(x -> String.format("%.0f", x)).toList(),
                        step.equals(RAW) ? "" : step.equals(RAW_IN_PLACE) ? String.format("restore: %.2fx",
                                median(mib, RESTORE) / median(mib, step)) : String.format("%.2fx", median(mib, step) / median(mib, RAW)));
            }
        }
        int idle = Arrays.stream(mibs).min().orElseThrow();
        int busy = Arrays.stream(mibs).max().orElseThrow();
        System.out.printf("%nbusy (%d MiB) / idle (%d MiB): Hearth branch %.2fx (goal: at most 1.5x), raw %.2fx%n", busy,
                idle, median(busy, BRANCH) / median(idle, BRANCH), median(busy, RAW) / median(idle, RAW));
        System.out.println("Hearth makes a base once 256 MB of WAL were written (a round every 30 s): past that its "
                + "replay is bounded, while the raw floor here replays everything from its one base.");
    }

    private void record(String step, int mib, long start) { // in rounds after the first
        if (keep) {
            times.computeIfAbsent(key(step, mib), k -> new ArrayList<>()).add((System.nanoTime() - start) / 1e6);
        }
    }

    private static String key(String step, int mib) {
        return mib + " MiB: " + step;
    }

    private static Connection jdbc(int port, JsonNode c) throws Exception {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + c.path("database").asText()
                + "?sslmode=require", c.path("user").asText(), c.path("password").asText());
    }

    private static Connection rawJdbc(int port) throws Exception {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres?sslmode=require", "postgres", "");
    }

    private static String one(java.sql.Statement s, String sql) throws Exception {
        var rows = s.executeQuery(sql);
        rows.next();
        return rows.getString(1);
    }

    private static String[] asPostgres(String... command) {
        var full = new ArrayList<>(List.of(AS_POSTGRES));
        full.addAll(List.of(command));
        return full.toArray(String[]::new);
    }

    private static boolean sh(String... command) throws Exception {
        var p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + ": " + out);
        }
        return true;
    }

    private double median(int mib, String step) {
        return median(times.get(key(step, mib)));
    }

    private static double median(List<Double> values) {
        var sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
