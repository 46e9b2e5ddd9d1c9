package dev.hearth.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestServer;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Properties;
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
    private NodeHosts nodes;
    private NodeHosts.Host a;
    private NodeHosts.Host b;
    private String ws;
    @TempDir
    Path tmp;

    @BeforeAll
    void start() throws Exception {
        nodes = NodeHosts.start("a", "b");
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
        for (var c : List.of(onA, onB)) {
            assertEquals(200, b.admin().send("DELETE", "/computers/" + c.path("id").asText(), null, Map.of()).status());
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
