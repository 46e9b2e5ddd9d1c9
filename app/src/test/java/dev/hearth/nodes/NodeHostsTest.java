package dev.hearth.nodes;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestServer;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes as hosts of their own (see {@link NodeHosts}): each in its network namespace with its own
 * address, on the same ports, sharing one store. Databases are reached through every node: its
 * wake proxy and its pooler, from outside and from its computers; a draining node's sleeping
 * database moves, with its data and checkpoints, and its old address still reaches it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeHostsTest {
    // Room for three computers of 2 GiB awake on each node (racingCreatesNeverOverfillANode).
    private static final long NODE_MB = 6144;
    private NodeHosts nodes;
    private NodeHosts.Host a;
    private NodeHosts.Host b;
    private String ws;
    @TempDir
    Path tmp;

    @BeforeAll
    void start() throws Exception {
        nodes = NodeHosts.start(Optional.of(NODE_MB), "a", "b");
        a = nodes.get("a");
        b = nodes.get("b");
        ws = TestServer.workspace(a.admin()).path("id").asText();
    }

    @AfterAll
    void stop() throws Exception {
        nodes.close();
    }

    @Test
    void computersOnEitherNodeAnswerThroughBoth() throws Exception {
        var onA = nodes.on("a", () -> TestComputers.create(a.admin(), ws, "first", "hearth/busybox", Map.of()));
        var onB = nodes.on("b", () -> TestComputers.create(a.admin(), ws, "second", "hearth/busybox", Map.of(
                "command", List.of("httpd", "-f", "-p", "8080", "-h", "/data"),
                "ports", List.of(Map.of("target", 8080, "published", 80)))));
        assertEquals(List.of("a", "b"), List.of(onA.path("node").asText(), onB.path("node").asText()));
        for (var via : List.of(a, b)) {
            for (var c : List.of(onA, onB)) {
                assertEquals(c.path("node").asText(), TestComputers.run(via.admin(), c.path("id").asText(),
                        "echo " + c.path("node").asText()));
            }
        }
        a.admin().upload("/computers/" + onB.path("id").asText() + "/files?path=/data/index.html", "text/plain",
                () -> new ByteArrayInputStream("served by b\n".getBytes()));
        String wsName = a.admin().get("/workspaces/" + ws).path("workspace").path("name").asText();
        for (var via : List.of(a, b)) {
            assertEquals("200 served by b", curl("second--" + wsName + ".localhost", via.address), "through " + via.name);
        }
        // Files, sleep, wake, a checkpoint and a fork of b's computer, each asked of either node.
        String id = onB.path("id").asText();
        byte[] bytes = new byte[2 << 20];
        new Random(11).nextBytes(bytes);
        a.admin().upload("/computers/" + id + "/files?path=/data/blob", "application/octet-stream",
                () -> new ByteArrayInputStream(bytes));
        try (var in = b.admin().download("/computers/" + id + "/files?path=/data/blob")) {
            assertArrayEquals(bytes, in.readAllBytes());
        }
        assertEquals("sleeping", a.admin().post("/computers/" + id + "/sleep", Map.of()).path("computer")
                .path("state").asText());
        assertEquals("ready", b.admin().post("/computers/" + id + "/wake", Map.of()).path("computer").path("state")
                .asText());
        var checkpoint = a.admin().send("POST", "/computers/" + id + "/checkpoints", Map.of("name", "k"),
                TestComputers.key());
        String op = checkpoint.body().path("operations").get(0).asText();
        assertEquals("succeeded", b.admin().get("/operations/" + op + "?wait=60").path("operation").path("state")
                .asText());
        var fork = a.admin().send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "second-fork",
                "from_checkpoint", checkpoint.body().path("checkpoint").path("id").asText()), TestComputers.key());
        assertEquals(201, fork.status(), () -> fork.body().toString());
        String forkId = fork.body().path("computer").path("id").asText();
        assertEquals(TestComputers.run(b.admin(), id, "sha256sum /data/blob | cut -d' ' -f1"),
                TestComputers.run(a.admin(), forkId, "sha256sum /data/blob | cut -d' ' -f1"));
        for (String c : List.of(onA.path("id").asText(), id, forkId)) {
            assertEquals(200, b.admin().send("DELETE", "/computers/" + c, null, Map.of()).status());
        }
    }

    /**
     * Through the overlay between the nodes: each side's computer reaches the other's by name, a
     * sleeping one on the other node wakes for the connection, and another workspace's computer
     * neither resolves it nor reaches its address.
     */
    @Test
    void computersOfAWorkspaceReachEachOtherAcrossNodesByNameAndNoOneElseDoes() throws Exception {
        var greeter = nodes.on("b", () -> TestComputers.create(a.admin(), ws, "greeter", "hearth/busybox", Map.of(
                "command", List.of("sh", "-c", "while true; do echo hello from b | nc -l -p 9000; done"))));
        var caller = nodes.on("a", () -> TestComputers.create(a.admin(), ws, "caller", "hearth/busybox", Map.of(
                "command", List.of("sh", "-c", "while true; do echo hello from a | nc -l -p 9001; done"))));
        String other = TestServer.workspace(a.admin()).path("id").asText();
        var stranger = nodes.on("a", () -> TestComputers.create(a.admin(), other, "stranger", "hearth/busybox",
                Map.of()));
        String callerId = caller.path("id").asText();
        String greeterId = greeter.path("id").asText();
        assertEquals("hello from b", TestComputers.run(a.admin(), callerId, "nc -w 5 greeter.internal 9000 </dev/null"));
        assertEquals("hello from a", TestComputers.run(a.admin(), greeterId, "nc -w 5 caller.internal 9001 </dev/null"));
        String address = TestComputers.run(a.admin(), callerId,
                "nslookup greeter.internal | awk '/^Address/ {a=$2} END {print a}'");
        String strangerId = stranger.path("id").asText();
        assertTrue(anyway(strangerId, "nslookup greeter.internal 2>&1").contains("NXDOMAIN"), "not its workspace's");
        assertEquals("", anyway(strangerId, "nc -w 3 " + address + " 9000 </dev/null 2>/dev/null"),
                "nor reached by address");

        assertEquals("sleeping", a.admin().post("/computers/" + greeterId + "/sleep", Map.of()).path("computer")
                .path("state").asText());
        assertEquals("hello from b", TestComputers.run(a.admin(), callerId, "nc -w 10 greeter.internal 9000 </dev/null"),
                "a connection from a wakes b's sleeping computer and is answered");
        for (String id : List.of(greeterId, callerId, strangerId)) {
            assertEquals(200, a.admin().send("DELETE", "/computers/" + id, null, Map.of()).status());
        }
    }

    /** A script's stdout in a computer, whatever its exit code. */
    private String anyway(String computer, String script) {
        var r = a.admin().send("POST", "/computers/" + computer + "/exec", Map.of("command", List.of("sh", "-c",
                script), "timeout_seconds", 30), Map.of());
        assertEquals(200, r.status(), () -> r.body().toString());
        return r.body().path("stdout").asText().strip();
    }

    @Test
    void aKilledNodesComputersAnswerNodeUnavailableUntilItIsBack() throws Exception {
        var computer = nodes.on("b", () -> TestComputers.create(a.admin(), ws, "survivor", "hearth/busybox", Map.of()));
        String id = computer.path("id").asText();
        TestComputers.run(a.admin(), id, "echo acknowledged > /data/f");
        nodes.kill(b);
        try {
            assertError(a.admin().send("POST", "/computers/" + id + "/exec", Map.of("command", List.of("true")),
                    Map.of()), 503, "node_unavailable");
        } finally {
            nodes.start(b);
        }
        assertEquals("acknowledged", TestComputers.run(a.admin(), id, "cat /data/f"), "back on b, untouched");
        a.admin().delete("/computers/" + id);
    }

    @Test
    void drainMovesASleepingComputerWithItsMemoryAndData() throws Exception {
        var computer = nodes.on("b", () -> TestComputers.create(a.admin(), ws, "traveller", "hearth/busybox",
                Map.of()));
        String id = computer.path("id").asText();
        a.admin().post("/computers/" + id + "/processes", Map.of("command", List.of("sh", "-c",
                "i=0; while true; do i=$((i+1)); echo $i > /tmp/n.t; mv /tmp/n.t /tmp/n; sleep 0.05; done")));
        TestComputers.run(a.admin(), id, "head -c 1000000 /dev/urandom > /data/blob; sleep 0.3");
        String blob = TestComputers.run(a.admin(), id, "sha256sum /data/blob | cut -d' ' -f1");
        String counted = TestComputers.run(a.admin(), id, "cat /tmp/n");
        a.admin().post("/computers/" + id + "/sleep", Map.of());
        nodes.drain("b", true);
        try {
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (!a.admin().get("/computers/" + id).path("computer").path("node").asText().equals("a")) {
                assertTrue(System.nanoTime() < deadline, "the computer never moved to a");
                Thread.sleep(300);
            }
        } finally {
            nodes.drain("b", false);
        }
        int after = Integer.parseInt(TestComputers.run(b.admin(), id, "sleep 0.3; cat /tmp/n"));
        assertTrue(after > Integer.parseInt(counted), counted + " then " + after + ": its memory came along");
        assertEquals(blob, TestComputers.run(b.admin(), id, "sha256sum /data/blob | cut -d' ' -f1"));
        a.admin().delete("/computers/" + id);
    }

    /**
     * Fifty creates of 2 GiB at once, half through each node: exactly as many succeed as fit, no node
     * is given more than it has, and the rest are told no node has room.
     */
    @Test
    void racingCreatesNeverOverfillANode() throws Exception {
        long room = 0;
        for (var n : nodes.nodes()) {
            room += (n.capacity().memoryBytes() - n.hosted().computerMemoryBytes()) / (2048L << 20);
        }
        var answers = new ArrayList<Future<HearthClient.Response>>();
        try (var pool = Executors.newFixedThreadPool(10)) {
            for (int i = 0; i < 50; i++) {
                var via = (i % 2 == 0 ? a : b).admin();
                String name = "race-" + i;
                answers.add(pool.submit(() -> via.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", name,
                        "image", "hearth/busybox", "resources", Map.of("memory_mb", 2048)), TestComputers.key())));
            }
        }
        var made = new ArrayList<String>();
        for (var f : answers) {
            var r = f.get();
            if (r.status() == 201) {
                made.add(r.body().path("computer").path("id").asText());
            } else {
                assertError(r, 503, "node_unavailable");
            }
        }
        assertEquals(room, made.size(), "as many as fit");
        for (var n : nodes.nodes()) {
            assertTrue(n.hosted().computerMemoryBytes() <= n.capacity().memoryBytes(), n.toString());
        }
        for (String id : made) {
            a.admin().delete("/computers/" + id);
        }
    }

    @Test
    void aDatabaseOnBIsReachedThroughAsPortAndPooler() throws Exception {
        var db = database(b, "far");
        var connection = a.admin().get("/databases/" + db.path("id").asText() + "/connection").path("connection");
        assertEquals(b.address, connection.path("host").asText(), "its uri names the node that runs it");
        Path ca = Files.writeString(tmp.resolve("ca.pem"), connection.path("server_ca").asText());
        int port = connection.path("port").asInt();
        try (var direct = connect(b.address, port, connection.path("database").asText(), connection, ca)) {
            direct.createStatement().execute("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('on b')");
        }
        // Through a's own port for it (opened within seconds of the create): a relays to b, where the
        // cluster answers (TLS checked against the one CA).
        try (var viaA = connectSoon(a.address, port, connection.path("database").asText(), connection, ca)) {
            assertEquals("on b", one(viaA, "SELECT v FROM kept"));
            assertEquals(b.address, one(viaA, "SELECT host(inet_server_addr())"));
        }
        // Asleep, a connection through a wakes it on b.
        assertEquals("sleeping", a.admin().post("/databases/" + db.path("id").asText() + "/sleep", Map.of())
                .path("database").path("state").asText());
        try (var viaA = connect(a.address, port, connection.path("database").asText(), connection, ca)) {
            assertEquals("on b", one(viaA, "SELECT v FROM kept"));
        }
        // a's pooler logs into b's cluster; its own certificate comes from the same CA.
        String pooled = connection.path("pooler_uri").asText().replaceFirst(".*/", "").replaceFirst("\\?.*", "");
        try (var viaPooler = connect(a.address, connection.path("pooler_port").asInt(), pooled, connection, ca)) {
            assertEquals("on b", one(viaPooler, "SELECT v FROM kept"));
        }
        // A reset through a: the new password works through a's pooler, the old one no longer.
        var reset = a.admin().post("/databases/" + db.path("id").asText() + "/reset_credentials", Map.of())
                .path("connection");
        try (var viaPooler = connect(a.address, connection.path("pooler_port").asInt(), pooled, reset, ca)) {
            assertEquals("on b", one(viaPooler, "SELECT v FROM kept"));
        }
        assertThrows(SQLException.class, () -> connect(a.address, connection.path("pooler_port").asInt(), pooled,
                connection, ca).close());
        // b stopped (its clusters with it): a connection through a waits until b is back, instead of
        // being closed at once. (Killed, b would leave its awake cluster answering through its rules.)
        nodes.stop(b);
        java.util.concurrent.CompletableFuture<String> waited;
        try {
            waited = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try (var viaA = connect(a.address, port, connection.path("database").asText(), reset, ca)) {
                    return one(viaA, "SELECT v FROM kept");
                } catch (SQLException e) {
                    return "failed: " + e.getMessage();
                }
            });
            Thread.sleep(1000);
            assertFalse(waited.isDone(), "held, not refused: " + (waited.isDone() ? waited.join() : ""));
        } finally {
            nodes.start(b);
        }
        assertEquals("on b", waited.get(60, java.util.concurrent.TimeUnit.SECONDS));
    }

    @Test
    void aComputerReachesADatabaseOfTheOtherNodeByName() throws Exception {
        // The computer first: awake, it stays where it is while its node drains for the database's create.
        var computer = TestComputers.create(a.admin(), ws, "client", "hearth/busybox", Map.of());
        String id = computer.path("id").asText();
        var db = database(computer.path("node").asText().equals("a") ? b : a, "named");
        assertTrue(!db.path("node").asText().equals(computer.path("node").asText()));
        a.admin().post("/databases/" + db.path("id").asText() + "/sleep", Map.of());
        String sslRequest = "(printf '\\000\\000\\000\\010\\004\\322\\026\\057'; sleep 1) | timeout 5 nc named.db.internal %d"
                + " | head -c 1";
        assertEquals("S", TestComputers.run(a.admin(), id, sslRequest.formatted(5432)), "TLS from b's cluster");
        assertEquals("ready", a.admin().get("/databases/" + db.path("id").asText()).path("database").path("state")
                .asText(), "it woke on b");
        assertEquals("S", TestComputers.run(a.admin(), id, sslRequest.formatted(6432)), "a's pooler");
        a.admin().send("DELETE", "/computers/" + id, null, Map.of());
    }

    @Test
    void drainMovesASleepingDatabaseWithItsDataAndCheckpoints() throws Exception {
        var db = database(b, "mover");
        String id = db.path("id").asText();
        var connection = a.admin().get("/databases/" + id + "/connection").path("connection");
        Path ca = Files.writeString(tmp.resolve("mover-ca.pem"), connection.path("server_ca").asText());
        int port = connection.path("port").asInt();
        String name = connection.path("database").asText();
        try (var c = connect(b.address, port, name, connection, ca)) {
            c.createStatement().execute("CREATE TABLE t AS SELECT g AS n FROM generate_series(1, 1000) g");
        }
        var checkpoint = a.admin().create("/databases/" + id + "/checkpoints", Map.of("name", "before"));
        String op = checkpoint.path("operations").get(0).asText();
        assertEquals("succeeded", a.admin().get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
        a.admin().post("/databases/" + id + "/sleep", Map.of());

        nodes.drain("b", true);
        try {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!a.admin().get("/databases/" + id).path("database").path("node").asText().equals("a")) {
                assertTrue(System.nanoTime() < deadline, "the database never moved to a");
                Thread.sleep(500);
            }
        } finally {
            nodes.drain("b", false);
        }
        // Its uri still names b: b relays to a, where it wakes with its data; awake, a's kernel forwards to it.
        try (var viaB = connect(b.address, port, name, connection, ca)) {
            assertEquals("1000", one(viaB, "SELECT count(*) FROM t"));
        }
        try (var viaB = connect(b.address, port, name, connection, ca)) {
            assertEquals(a.address, one(viaB, "SELECT host(inet_server_addr())"));
        }
        var branch = a.admin().send("POST", "/workspaces/" + ws + "/databases", Map.of("name", "mover-branch",
                "from_checkpoint", checkpoint.path("checkpoint").path("id").asText()), TestComputers.key());
        assertEquals(201, branch.status(), () -> branch.body().toString());
        assertEquals("a", branch.body().path("database").path("node").asText(), "the checkpoint moved with it");
        var branched = a.admin().get("/databases/" + branch.body().path("database").path("id").asText()
                + "/connection").path("connection");
        try (var c = connect(a.address, branched.path("port").asInt(), name, branched, ca)) {
            assertEquals("1000", one(c, "SELECT count(*) FROM t"));
        }
        assertTrue(Files.notExists(b.dataDir.resolve("databases/disks/" + id + ".img")), "nothing of it stays on b");
    }

    /** A database made through {@code on}'s API while the other node drains, so that it is placed there. */
    private JsonNode database(NodeHosts.Host on, String name) throws Exception {
        var made = nodes.on(on.name, () -> on.admin().send("POST", "/workspaces/" + ws + "/databases",
                Map.of("name", name), TestComputers.key()));
        assertEquals(201, made.status(), () -> made.body().toString());
        assertEquals(on.name, made.body().path("database").path("node").asText());
        return made.body().path("database");
    }

    private static Connection connect(String host, int port, String database, JsonNode login, Path ca)
            throws SQLException {
        var props = new Properties();
        props.setProperty("user", login.path("user").asText());
        props.setProperty("password", login.path("password").asText());
        props.setProperty("sslmode", "verify-ca");
        props.setProperty("sslrootcert", ca.toString());
        props.setProperty("connectTimeout", "20");
        return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/" + database, props);
    }

    /** {@code "STATUS BODY"} of a GET of {@code host}'s index through the router at {@code address}. */
    private static String curl(String host, String address) throws Exception {
        var p = new ProcessBuilder("curl", "-s", "-m", "30", "-w", "%{http_code}", "-o", "-", "--resolve",
                host + ":7301:" + address, "http://" + host + ":7301/index.html").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return out.substring(out.length() - 3) + " " + out.substring(0, out.length() - 3).strip();
    }

    /** {@link #connect}, again while refused: another node opens a new database's port within seconds. */
    private static Connection connectSoon(String host, int port, String database, JsonNode login, Path ca)
            throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try {
                return connect(host, port, database, login, ca);
            } catch (SQLException e) {
                if (!"08001".equals(e.getSQLState()) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    private static String one(Connection c, String sql) throws SQLException {
        try (var rs = c.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
