package dev.hearth.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Mixed load (creates, execs writing to /data, checkpoints, sleeps, database writes) while
 * {@code hearth serve} is killed with SIGKILL at random moments and started again on the same data
 * directory; then the invariants: every acknowledged create exists and settles, every acknowledged
 * write to /data and to the database is there, no operation stays running, and nothing of the data
 * directory is left on the host after {@code hearth admin teardown}. Prints the counts. With
 * {@code nodes=2}, nodes a and b share a PostgreSQL store, each call goes to one picked at random,
 * and each kill takes one node picked at random.
 * Usage: {@code bench/run ChaosBench [seconds=120] [kills=5] [clients=3] [nodes=1]}.
 */
public final class ChaosBench {
    private static final int MAX_COMPUTERS = 6;
    private final Random random = new Random();
    private ChaosCluster cluster;
    private final Set<String> created = new ConcurrentSkipListSet<>();
    private final Map<String, Set<Integer>> written = new ConcurrentHashMap<>();
    private final Set<Integer> rows = new ConcurrentSkipListSet<>();
    private final Map<String, AtomicInteger> tried = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> acknowledged = new ConcurrentHashMap<>();
    private final AtomicInteger next = new AtomicInteger();
    private String ws;
    private String db;

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 120;
        int kills = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int clients = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        int nodes = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        new ChaosBench().run(seconds, kills, clients, nodes);
    }

    /** The admin's client of a node picked at random. */
    private HearthClient admin() {
        return cluster.anyAdmin();
    }

    private void run(int seconds, int kills, int clients, int nodes) throws Exception {
        cluster = ChaosCluster.start(nodes);
        try {
            ws = admin().create("/workspaces", Map.of("name", "chaos")).path("workspace").path("id").asText();
            db = admin().create("/workspaces/" + ws + "/databases", Map.of("name", "ledger")).path("database")
                    .path("id").asText();
            admin().post("/databases/" + db + "/query", Map.of("sql", "create table t (v int primary key)"));
            long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
            var workers = new ArrayList<Thread>();
            for (int i = 0; i < clients; i++) {
                workers.add(Thread.ofVirtual().start(() -> work(end)));
            }
            var killed = kill(kills, seconds);
            for (var w : workers) {
                w.join();
            }
            System.out.printf("%d s, %d clients, %d node(s), %d kills of hearth serve (SIGKILL: %s), each started again%n",
                    seconds, clients, cluster.size(), killed.size(), String.join(" ", killed));
            tried.forEach((kind, n) -> System.out.printf("  %-12s tried %4d, acknowledged %4d%n", kind, n.get(),
                    acknowledged.getOrDefault(kind, new AtomicInteger()).get()));
            var breaks = Invariants.check(cluster.firstAdmin(), ws, db, created, written, rows);
            breaks.addAll(Invariants.orphans(cluster.dataDirs(), created));
            System.out.printf("invariant breaks: %d%n", breaks.size());
            breaks.forEach(b -> System.out.println("  " + b));
        } finally {
            var teardown = cluster.teardown();
            System.out.printf("teardown after the run: %d objects taken down; a second teardown finds %d left%n",
                    teardown.taken(), teardown.left());
            cluster.close();
        }
    }

    /** Kills a node {@code kills} times at random moments over the run; answers which, in order. */
    private List<String> kill(int kills, int seconds) throws Exception {
        long every = seconds * 1000L / (kills + 1);
        var killed = new ArrayList<String>();
        for (int i = 0; i < kills; i++) {
            Thread.sleep(every / 2 + random.nextLong(every));
            killed.add(cluster.killOne(500));
        }
        return killed;
    }

    private void work(long end) {
        while (System.nanoTime() < end) {
            var computers = new ArrayList<>(created);
            int pick = random.nextInt(10);
            if (pick < 2 && computers.size() < MAX_COMPUTERS) {
                attempt("create", () -> {
                    var r = admin().send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "c"
                            + next.incrementAndGet(), "image", "hearth/busybox"), key());
                    if (r.status() == 201 || r.status() == 202) {
                        created.add(r.body().path("computer").path("id").asText());
                        return true;
                    }
                    return false;
                });
            } else if (pick < 6 && !computers.isEmpty()) {
                String id = computers.get(random.nextInt(computers.size()));
                int n = next.incrementAndGet();
                attempt("exec-write", () -> {
                    var r = admin().send("POST", "/computers/" + id + "/exec", Map.of("command",
                            List.of("sh", "-c", "echo " + n + " > /data/f" + n + " && sync"), "timeout_seconds", 20), Map.of());
                    if (r.status() == 200 && r.body().path("exit_code").asInt(-1) == 0) {
                        written.computeIfAbsent(id, k -> new ConcurrentSkipListSet<>()).add(n);
                        return true;
                    }
                    return false;
                });
            } else if (pick < 7 && !computers.isEmpty()) {
                String id = computers.get(random.nextInt(computers.size()));
                attempt("checkpoint", () -> admin().send("POST", "/computers/" + id + "/checkpoints",
                        Map.of("name", "k" + next.incrementAndGet()), key()).status() / 100 == 2);
            } else if (pick < 8 && !computers.isEmpty()) {
                String id = computers.get(random.nextInt(computers.size()));
                attempt("sleep", () -> admin().send("POST", "/computers/" + id + "/sleep", Map.of(), Map.of())
                        .status() / 100 == 2);
            } else {
                int n = next.incrementAndGet();
                attempt("db-write", () -> {
                    var r = admin().send("POST", "/databases/" + db + "/query",
                            Map.of("sql", "insert into t values (" + n + ")"), Map.of());
                    if (r.status() == 200) {
                        rows.add(n);
                        return true;
                    }
                    return false;
                });
            }
        }
    }

    private static Map<String, String> key() {
        return Map.of("Idempotency-Key", java.util.UUID.randomUUID().toString());
    }

    private interface Attempt {
        boolean run();
    }

    private void attempt(String kind, Attempt attempt) {
        tried.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
        try {
            if (attempt.run()) {
                acknowledged.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
            }
        } catch (RuntimeException e) {
            // the server is down or going down: not acknowledged
        }
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The checks after the run, each a line when broken. */
    static final class Invariants {
        static List<String> check(HearthClient admin, String ws, String db, Set<String> created,
                                  Map<String, Set<Integer>> written, Set<Integer> rows) throws Exception {
            var breaks = new ArrayList<String>();
            for (String id : created) {
                JsonNode c = settled(admin, id);
                String state = c.path("state").asText();
                if (!state.equals("ready") && !state.equals("sleeping")) {
                    breaks.add("computer " + id + " acknowledged but " + (state.isEmpty() ? "missing" : state) + ": " + c);
                    continue;
                }
                for (int n : written.getOrDefault(id, Set.of())) {
                    var r = admin.send("POST", "/computers/" + id + "/exec", Map.of("command",
                            List.of("cat", "/data/f" + n), "timeout_seconds", 60), Map.of());
                    if (r.status() != 200 || !r.body().path("stdout").asText().strip().equals(String.valueOf(n))) {
                        breaks.add("computer " + id + ": acknowledged /data/f" + n + " reads " + r.body());
                    }
                }
            }
            var r = admin.send("POST", "/databases/" + db + "/query", Map.of("sql", "select v from t", "max_rows", 10000),
                    Map.of());
            var found = new java.util.HashSet<Integer>();
            r.body().path("result").path("rows").forEach(row -> found.add(row.path(0).asInt()));
            rows.stream().filter(n -> !found.contains(n)).forEach(n -> breaks.add("database row " + n
                    + " acknowledged but missing"));
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            JsonNode running;
            do {
                running = admin.get("/workspaces/" + ws + "/operations?state=running").path("operations");
                Thread.sleep(1000);
            } while (!running.isEmpty() && System.nanoTime() < deadline);
            running.forEach(op -> breaks.add("operation still running: " + op));
            return breaks;
        }

        /** Sandboxes of no acknowledged computer, and computers with more than one sandbox running. */
        static List<String> orphans(List<Path> dataDirs, Set<String> created) {
            var breaks = new ArrayList<String>();
            var byComputer = new java.util.HashMap<String, List<String>>();
            dataDirs.forEach(dataDir -> dev.hearth.server.sandbox.runsc.RunscRuntime.sandboxesUnder(
                    dataDir.resolve("runsc")).keySet().forEach(s -> byComputer.computeIfAbsent(
                            s.substring(0, s.lastIndexOf('-')), k -> new ArrayList<>()).add(dataDir.getFileName() + ":" + s)));
            byComputer.forEach((computer, sandboxes) -> {
                if (!created.contains(computer)) {
                    breaks.add("orphan sandboxes " + sandboxes + " of no acknowledged computer");
                } else if (sandboxes.size() > 1) {
                    breaks.add("computer " + computer + " has " + sandboxes.size() + " sandboxes: " + sandboxes);
                }
            });
            return breaks;
        }

        /** The computer once no move is under way (up to two minutes), or an empty node if it is gone. */
        private static JsonNode settled(HearthClient admin, String id) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            JsonNode c;
            do {
                var r = admin.send("GET", "/computers/" + id, null, Map.of());
                c = r.status() == 200 ? r.body().path("computer") : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
                if (c.isMissingNode() || (c.path("pending").isNull() && !c.path("state").asText().equals("creating"))) {
                    return c;
                }
                Thread.sleep(1000);
            } while (System.nanoTime() < deadline);
            return c;
        }
    }
}
