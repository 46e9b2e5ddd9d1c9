package dev.hearth.databases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.support.Eventually;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Connections to an awake database reach its cluster straight (the kernel forwards its port; no
 * byte passes through Hearth), and none is refused while it sleeps and wakes under load.
 */
@HearthServerTest(databases = true)
class DatabaseWireTest {
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeAll
    void start() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    /** A new database's id and connection details. */
    private record Db(String id, JsonNode c) {
    }

    private Db create(String name, Map<String, Object> extra) {
        var body = new HashMap<String, Object>(extra);
        body.put("name", name);
        var r = admin.send("POST", "/workspaces/" + ws + "/databases", body, Map.of("Idempotency-Key", name));
        assertEquals(201, r.status(), () -> r.body().toString());
        String id = r.body().path("database").path("id").asText();
        return new Db(id, admin.get("/databases/" + id + "/connection").path("connection"));
    }

    private static Connection recorded(JsonNode c) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + c.path("host").asText() + ":" + c.path("port").asInt()
                + "/" + c.path("database").asText() + "?sslmode=require&connectTimeout=30&socketFactory="
                + RecordingSockets.class.getName(), c.path("user").asText(), c.path("password").asText());
    }

    /** The client port PostgreSQL saw, and the one this connection has: equal when nothing relayed it. */
    private static int[] ports(Connection connection) throws SQLException {
        int local = RecordingSockets.lastLocalPort();
        return new int[] {Integer.parseInt(DatabasesTest.query(connection, "SELECT inet_client_port()")), local};
    }

    @Test
    void connectionsToAnAwakeDatabaseReachItsClusterStraight() throws Exception {
        var db = create("straight", Map.of());
        assertEquals("1", DatabasesTest.query(recorded(db.c()), "SELECT 1"), "the first connection wakes it");
        for (int round = 0; round < 2; round++) {
            var seen = ports(recorded(db.c()));
            assertEquals(seen[1], seen[0], "PostgreSQL sees the client's own port: no proxy between them");
            admin.post("/databases/" + db.id() + "/sleep", Map.of());
            assertEquals("1", DatabasesTest.query(recorded(db.c()), "SELECT 1"), "a sleeping database wakes on connect");
        }
    }

    @Test
    void aConnectionStraightToTheClusterKeepsItAwake() throws Exception {
        var db = create("held", Map.of("auto_sleep_seconds", 1));
        assertEquals("1", DatabasesTest.query(recorded(db.c()), "SELECT 1"));
        try (var held = recorded(db.c())) {
            assertEquals(RecordingSockets.lastLocalPort(), clientPort(held), "straight to the cluster");
            Thread.sleep(3000);
            assertEquals("ready", state(db), "an open connection keeps the database awake");
            assertTrue(held.isValid(5));
        }
        assertEquals("sleeping", Eventually.eventually(Duration.ofSeconds(20), () -> state(db), "sleeping"::equals),
                "the database falls asleep once it is left");
    }

    /**
     * Clients connect, query and leave in a loop, through the {@code uri} and the {@code pooler_uri},
     * while the database is put to sleep again and again: every connection is made and every query
     * answered, except those a sleep ends on purpose.
     */
    @Test
    void noConnectionIsRefusedWhileTheDatabaseSleepsAndWakes() throws Exception {
        var db = create("cycled", Map.of());
        var stop = new AtomicBoolean();
        var made = new AtomicInteger();
        var failures = new ConcurrentLinkedQueue<String>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var clients = new ArrayList<Future<?>>();
            for (int i = 0; i < 4; i++) {
                boolean pooled = i % 2 == 1;
                clients.add(pool.submit(() -> {
                    while (!stop.get()) {
                        connectAndQuery(db.c(), pooled, made, failures);
                    }
                    return null;
                }));
            }
            for (int cycle = 0; cycle < 5; cycle++) {
                Thread.sleep(700);
                admin.post("/databases/" + db.id() + "/sleep", Map.of());
            }
            Thread.sleep(700);
            stop.set(true);
            for (var client : clients) {
                client.get();
            }
        }
        assertEquals(List.of(), List.copyOf(failures));
        // Two per client at least, across the sleeps (a loaded CI machine made 19 in all).
        assertTrue(made.get() >= 8, "the clients got going: " + made.get());
    }

    private static void connectAndQuery(JsonNode c, boolean pooled, AtomicInteger made,
                                        ConcurrentLinkedQueue<String> failures) {
        Connection connection;
        try {
            String password = c.path("password").asText();
            connection = pooled ? DatabasesTest.pooled(c, password) : DatabasesTest.jdbc(c, password);
            made.incrementAndGet();
        } catch (SQLException e) {
            // A session a sleep's shutdown ends while pgjdbc still sets it up (57P01) was made, then ended
            // on purpose like any open one; refused or reset it must never be.
            if (!"57P01".equals(e.getSQLState())) {
                failures.add((pooled ? "pooled " : "") + "connect: " + e.getSQLState() + " " + e.getMessage());
            }
            return;
        }
        try {
            DatabasesTest.query(connection, "SELECT 1");
        } catch (SQLException e) {
            // A sleep ends open sessions (fast shutdown): 57P01, or the connection closed under the query.
            if (!"57P01".equals(e.getSQLState()) && !"08006".equals(e.getSQLState())) {
                failures.add((pooled ? "pooled " : "") + "query: " + e.getSQLState() + " " + e.getMessage());
            }
        }
    }

    private static int clientPort(Connection connection) throws SQLException {
        try (var rs = connection.createStatement().executeQuery("SELECT inet_client_port()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private String state(Db db) {
        return admin.get("/databases/" + db.id()).path("database").path("state").asText();
    }
}
