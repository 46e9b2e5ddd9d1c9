package dev.hearth.databases;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.support.Eventually;
import dev.hearth.api.Json;
import dev.hearth.cli.Cli;
import dev.hearth.client.HearthClient;
import dev.hearth.server.postgres.PostgresHost;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Databases on real PostgreSQL clusters, reached with real clients (pgjdbc and psql) over TLS with
 * SCRAM, directly and through pgbouncer.
 */
@HearthServerTest(databases = true)
class DatabasesTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;
    private Path tmp;

    @BeforeAll
    void start(@TempDir Path tmp) {
        this.tmp = tmp;
        ws = TestServer.workspace(admin).path("id").asText();
    }

    private JsonNode create(String name, Map<String, Object> extra) {
        var body = new HashMap<String, Object>(extra);
        body.put("name", name);
        var r = admin.send("POST", "/workspaces/" + ws + "/databases", body, Map.of("Idempotency-Key", name + "-" + System.nanoTime()));
        assertEquals(201, r.status(), () -> r.body().toString());
        return r.body().path("database");
    }

    private JsonNode connection(String db) {
        return admin.get("/databases/" + db + "/connection").path("connection");
    }

    private String state(String db) {
        return admin.get("/databases/" + db).path("database").path("state").asText();
    }

    static Connection jdbc(JsonNode c, String password) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + c.path("host").asText() + ":" + c.path("port").asInt()
                + "/" + c.path("database").asText() + "?sslmode=require&connectTimeout=30", c.path("user").asText(), password);
    }

    static Connection pooled(JsonNode c, String password) throws SQLException {
        String uri = c.path("pooler_uri").asText();
        String db = uri.substring(uri.lastIndexOf('/') + 1, uri.indexOf('?'));
        // pgbouncer 1.18 pools transactions and cannot keep prepared statements: prepareThreshold=0.
        return DriverManager.getConnection("jdbc:postgresql://" + c.path("host").asText() + ":"
                + c.path("pooler_port").asInt() + "/" + db + "?sslmode=require&prepareThreshold=0&connectTimeout=30",
                c.path("user").asText(), password);
    }

    static String query(Connection connection, String sql) throws SQLException {
        try (connection; var rs = connection.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    static void execute(Connection connection, String sql) throws SQLException {
        try (connection) {
            connection.createStatement().execute(sql);
        }
    }

    private static void assertRefused(Callable<Connection> connect) {
        var e = assertThrows(SQLException.class, () -> connect.call().close());
        // PostgreSQL says 28P01; pgbouncer says 08P01 "SASL authentication failed".
        assertTrue(e.getMessage().contains("authentication failed"), e::getMessage);
    }

    @Test
    void createConnectWriteAndReadDirectlyAndThroughThePooler() throws Exception {
        var db = create("shop", Map.of());
        assertEquals("sleeping", db.path("state").asText());
        assertEquals("postgres", db.path("engine").asText());
        assertEquals(PostgresHost.probe().defaultVersion(), db.path("version").asText());
        String id = db.path("id").asText();
        var c = connection(id);
        assertEquals("require", c.path("ssl_mode").asText());
        assertTrue(c.path("uri").asText().endsWith("@127.0.0.1:" + c.path("port").asInt() + "/shop?sslmode=require"));
        assertTrue(c.path("pooler_uri").asText().contains(":" + c.path("pooler_port").asInt() + "/" + id + "?"));
        assertTrue(c.path("server_ca").asText().startsWith("-----BEGIN CERTIFICATE-----"));
        // Reading the database and its connection never wakes it.
        assertEquals("sleeping", state(id));

        String password = c.path("password").asText();
        execute(jdbc(c, password), "CREATE TABLE items (n int); INSERT INTO items VALUES (1), (2), (3)");
        assertEquals("ready", state(id));
        assertEquals("3", query(pooled(c, password), "SELECT count(*) FROM items"));
        assertEquals("t", query(jdbc(c, password), "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));

        // verify-full with the CA the API gives, from psql (libpq) with channel binding.
        Path ca = tmp.resolve("ca.crt");
        Files.writeString(ca, c.path("server_ca").asText());
        String uri = c.path("uri").asText().replace("sslmode=require", "sslmode=verify-full&sslrootcert=" + ca
                + "&channel_binding=require");
        assertEquals("6", psql(uri, "SELECT sum(n) FROM items"));
        // And pgjdbc with verify-full.
        try (var verified = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + c.path("port").asInt()
                + "/shop?sslmode=verify-full&sslrootcert=" + ca, "shop", password)) {
            assertTrue(verified.isValid(5));
        }
    }

    @Test
    void resetWhileAwakeRefusesTheOldAndSqlSetPasswords() throws Exception {
        String id = create("reset-awake", Map.of()).path("id").asText();
        var c = connection(id);
        String first = c.path("password").asText();
        execute(jdbc(c, first), "ALTER ROLE \"reset-awake\" PASSWORD 'chosen-in-sql'");
        assertEquals("1", query(jdbc(c, "chosen-in-sql"), "SELECT 1"));
        assertRefused(() -> jdbc(c, first));
        var open = jdbc(c, "chosen-in-sql");

        var r = admin.send("POST", "/databases/" + id + "/reset_credentials", null, Map.of("Idempotency-Key", "reset-1"));
        assertEquals(200, r.status(), () -> r.body().toString());
        var reset = r.body().path("connection");
        assertFalse(reset.path("reset_pending").asBoolean());
        String second = reset.path("password").asText();
        assertNotEquals(first, second);
        assertEquals("ready", state(id));
        assertRefused(() -> jdbc(c, "chosen-in-sql"));
        assertRefused(() -> pooled(c, "chosen-in-sql"));
        assertEquals("1", query(jdbc(c, second), "SELECT 1"));
        assertEquals("1", query(pooled(c, second), "SELECT 1"));
        // Sessions opened with an old password are ended.
        assertThrows(SQLException.class, () -> open.createStatement().execute("SELECT 1"));
        open.close();

        // A replay answers the password redacted and does not reset again.
        var replay = admin.send("POST", "/databases/" + id + "/reset_credentials", null, Map.of("Idempotency-Key", "reset-1"));
        assertEquals(200, replay.status());
        assertEquals("********", replay.body().path("connection").path("password").asText());
        assertEquals("1", query(jdbc(c, second), "SELECT 1"));
        assertEquals(second, connection(id).path("password").asText());
    }

    @Test
    void resetWhileAsleepDoesNotWakeAndTakesEffectBeforeTheNextConnection() throws Exception {
        String id = create("reset-asleep", Map.of()).path("id").asText();
        var c = connection(id);
        String first = c.path("password").asText();
        assertEquals("1", query(jdbc(c, first), "SELECT 1"));
        assertEquals("sleeping", admin.post("/databases/" + id + "/sleep", Map.of()).path("database").path("state").asText());

        var reset = admin.post("/databases/" + id + "/reset_credentials", null).path("connection");
        assertTrue(reset.path("reset_pending").asBoolean(), reset::toString);
        String second = reset.path("password").asText();
        assertEquals("sleeping", state(id));
        Thread.sleep(500);
        assertEquals("sleeping", state(id));
        assertFalse(connection(id).path("reset_pending").asBoolean(), "applied to the stopped cluster");

        assertRefused(() -> jdbc(c, first));
        assertEquals("1", query(jdbc(c, second), "SELECT 1"));
        assertEquals("ready", state(id));
    }

    @Test
    void fiftyConcurrentFirstConnectionsWakeASleepingDatabaseOnce() throws Exception {
        String id = create("crowd", Map.of()).path("id").asText();
        var c = connection(id);
        String password = c.path("password").asText();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var answers = new ArrayList<Future<String>>();
            for (int i = 0; i < 50; i++) {
                int n = i;
                answers.add(pool.submit(() -> query(n % 2 == 0 ? jdbc(c, password) : pooled(c, password), "SELECT " + n)));
            }
            for (int i = 0; i < 50; i++) {
                assertEquals(String.valueOf(i), answers.get(i).get());
            }
        }
        assertEquals("ready", state(id));
        // Through the pooler alone, after sleep.
        admin.post("/databases/" + id + "/sleep", Map.of());
        assertEquals("sleeping", state(id));
        assertEquals("1", query(pooled(c, password), "SELECT 1"));
        assertEquals("ready", state(id));
    }

    @Test
    void autoSleepWaitsForTheLastConnectionToClose() throws Exception {
        String id = create("dozy", Map.of("auto_sleep_seconds", 1)).path("id").asText();
        var c = connection(id);
        String password = c.path("password").asText();
        try (var held = jdbc(c, password)) {
            Thread.sleep(2500);
            assertEquals("ready", state(id), "an open connection keeps the database awake");
            assertTrue(held.isValid(5));
        }
        assertEquals("sleeping", Eventually.eventually(Duration.ofSeconds(20), () -> state(id), "sleeping"::equals),
                "the database falls asleep");
        assertFalse(admin.get("/databases/" + id).path("database").path("last_active_at").isNull());
        assertEquals("1", query(jdbc(c, password), "SELECT 1"));
    }

    @Test
    void checkpointsAndBranchesKeepTheirDataAndAreIndependent() throws Exception {
        String id = create("ledger", Map.of()).path("id").asText();
        var c = connection(id);
        String password = c.path("password").asText();
        execute(jdbc(c, password), "CREATE TABLE entries (n int); INSERT INTO entries SELECT generate_series(1, 1000)");

        var awake = checkpoint(id, "awake");
        assertEquals("database", awake.path("source_type").asText());
        assertEquals("consistent", awake.path("consistency").asText());
        assertTrue(awake.path("size_bytes").asLong() > 1_000_000);
        execute(jdbc(c, password), "INSERT INTO entries VALUES (1001)");
        admin.post("/databases/" + id + "/sleep", Map.of());
        var asleep = checkpoint(id, "asleep");
        assertEquals(awake.path("id").asText(), asleep.path("parent").asText());
        assertEquals("sleeping", state(id), "a sleeping database stays asleep while checkpointed");

        var branch = create("ledger-branch", Map.of("from_checkpoint", "ledger/awake"));
        assertEquals(id, branch.path("parent").asText());
        assertEquals(awake.path("id").asText(), branch.path("from_checkpoint").asText());
        var bc = connection(branch.path("id").asText());
        assertEquals("ledger", bc.path("database").asText());
        assertNotEquals(password, bc.path("password").asText(), "a branch has its own credentials");
        assertRefused(() -> jdbc(bc, password));
        String branchPassword = bc.path("password").asText();
        assertEquals("1000", query(jdbc(bc, branchPassword), "SELECT count(*) FROM entries"));
        execute(jdbc(bc, branchPassword), "DELETE FROM entries");
        assertEquals("1001", query(jdbc(c, password), "SELECT count(*) FROM entries"));

        var second = create("ledger-second", Map.of("from_checkpoint", asleep.path("id").asText()));
        var sc = connection(second.path("id").asText());
        assertEquals("1001", query(jdbc(sc, sc.path("password").asText()), "SELECT count(*) FROM entries"));

        var list = admin.get("/databases/" + id + "/checkpoints").path("checkpoints");
        assertEquals(2, list.size());
        assertEquals("asleep", list.get(0).path("name").asText());
        var deleting = admin.delete("/databases/" + id + "/checkpoints/asleep");
        assertEquals("deleting", deleting.path("checkpoint").path("state").asText());
        admin.get("/operations/" + deleting.path("operations").get(0).asText() + "?wait=30");
        assertEquals(1, admin.get("/databases/" + id + "/checkpoints").path("checkpoints").size());
    }

    private JsonNode checkpoint(String db, String name) {
        var accepted = admin.create("/databases/" + db + "/checkpoints", Map.of("name", name));
        assertEquals("creating", accepted.path("checkpoint").path("state").asText());
        var op = admin.get("/operations/" + accepted.path("operations").get(0).asText() + "?wait=60").path("operation");
        assertEquals("succeeded", op.path("state").asText(), op::toString);
        var done = admin.get("/databases/" + db + "/checkpoints/" + name).path("checkpoint");
        assertEquals("ready", done.path("state").asText(), done::toString);
        return done;
    }

    @Test
    void aCrashedClusterIsRestartedAndSaysSo() throws Exception {
        String id = create("fragile", Map.of()).path("id").asText();
        var c = connection(id);
        String password = c.path("password").asText();
        execute(jdbc(c, password), "CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)");
        long pid = Long.parseLong(Files.readAllLines(server.dataDir.resolve("databases/clusters/" + id
                + "/data/postmaster.pid")).getFirst());
        new ProcessBuilder("kill", "-9", String.valueOf(pid)).start().waitFor();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        JsonNode db;
        do {
            assertTrue(System.nanoTime() < deadline, "the crash was not noticed");
            Thread.sleep(100);
            db = admin.get("/databases/" + id).path("database");
        } while (db.path("error").isNull() || !db.path("state").asText().equals("ready"));
        assertEquals("crashed", db.path("error").path("code").asText());
        assertEquals("42", query(jdbc(c, password), "SELECT n FROM kept"));
    }

    @Test
    void protectedDatabasesRefuseDeleteAndDeletedOnesAreGone() throws Exception {
        String id = create("keep", Map.of("protected", true)).path("id").asText();
        var c = connection(id);
        assertEquals("1", query(jdbc(c, c.path("password").asText()), "SELECT 1"));
        assertError(admin.send("DELETE", "/databases/" + id, null, Map.of()), 409, "protected");
        var patched = admin.patch("/databases/" + id, Map.of("protected", false, "auto_sleep_seconds", 0)).path("database");
        assertFalse(patched.path("protected").asBoolean());
        assertEquals(0, patched.path("auto_sleep_seconds").asInt());
        var deleted = admin.delete("/databases/" + id).path("database");
        assertFalse(deleted.path("deleted_at").isNull());
        assertThrows(SQLException.class, () -> jdbc(c, c.path("password").asText()).close());
        assertError(admin.send("GET", "/databases/" + id + "/connection", null, Map.of()), 404, "not_found");
        assertFalse(Files.exists(server.dataDir.resolve("databases/clusters/" + id)));
        // The name is free again.
        create("keep", Map.of());
    }

    @Test
    void badInputIsAnsweredWithClearErrors() {
        String path = "/workspaces/" + ws + "/databases";
        var key = Map.of("Idempotency-Key", "bad-" + System.nanoTime());
        assertError(admin.send("POST", path, Map.of("name", "Bad_Name"), key), 400, "invalid_request");
        assertError(admin.send("POST", path, Map.of("name", "v", "version", "9"), Map.of("Idempotency-Key", "b2")), 400,
                "invalid_request");
        for (String version : List.of("x", "", "15.0", " 15", "015", "-1", "1".repeat(40))) {
            var r = admin.send("POST", path, Map.of("name", "v", "version", version),
                    Map.of("Idempotency-Key", "bv-" + System.nanoTime()));
            assertError(r, 400, "invalid_request");
            assertTrue(r.body().path("error").path("details").path("fields").has("version"), r.body().toString());
        }
        assertError(admin.send("POST", path, Map.of("name", "a", "auto_sleep_seconds", -1), Map.of("Idempotency-Key", "b3")),
                400, "invalid_request");
        assertError(admin.send("POST", path, Map.of("name", "f", "from_checkpoint", "nope/none"),
                Map.of("Idempotency-Key", "b4")), 400, "invalid_request");
        assertError(admin.send("POST", path, Map.of("name", "u", "colour", "red"), Map.of("Idempotency-Key", "b5")), 400,
                "invalid_request");
        assertError(admin.send("POST", path, Map.of("name", "nokey"), Map.of()), 400, "idempotency_key_required");
        create("twin", Map.of());
        assertError(admin.send("POST", path, Map.of("name", "twin"), Map.of("Idempotency-Key", "b6")), 409, "conflict");
        assertError(admin.send("GET", "/databases/000000000000000000000000000", null, Map.of()), 404, "not_found");
    }

    @Test
    void viewersSeeNoPasswordAndStrangersSeeNothing() {
        String id = create("guarded", Map.of()).path("id").asText();
        admin.create("/workspaces/" + ws + "/access", Map.of("email", "db-viewer@example.com", "role", "viewer"));
        var viewer = server.emailUser("db-viewer@example.com");
        var seen = viewer.get("/databases/" + id + "/connection").path("connection");
        assertEquals("********", seen.path("password").asText());
        assertFalse(seen.path("uri").asText().contains(connection(id).path("password").asText()));
        assertError(viewer.send("POST", "/databases/" + id + "/reset_credentials", null, Map.of()), 403, "forbidden");
        var stranger = server.emailUser("db-stranger@example.com");
        assertError(stranger.send("GET", "/databases/" + id, null, Map.of()), 404, "not_found");
        assertError(stranger.send("GET", "/databases/" + id + "/connection", null, Map.of()), 404, "not_found");
    }

    @Test
    void rotatingTheEncryptionKeyKeepsEveryDatabasesPassword() throws Exception {
        String id = create("rotated", Map.of()).path("id").asText();
        var c = connection(id);
        String password = c.path("password").asText();
        var keyFile = server.dataDir.resolve("encryption-keys.json");
        String before = Json.mapper().readTree(keyFile.toFile()).path("active").asText();
        var out = new ByteArrayOutputStream();
        // Twice: the key active before a rotation stays one rotation longer (another node may still seal with it).
        for (int round = 0; round < 2; round++) {
            int code = Cli.run(new String[] {"admin", "rotate-encryption-key", "--data-dir", server.dataDir.toString()},
                    new Cli.Context(Map.of(), System.in, new PrintStream(out, true), System.err, tmp.resolve("cli")));
            assertEquals(0, code, out.toString());
        }
        var keys = Json.mapper().readTree(keyFile.toFile());
        assertFalse(keys.path("keys").has(before), "every sealed value was sealed again, so the old key goes: " + out);
        assertEquals(password, connection(id).path("password").asText(), "the password opens with the new key");
        assertEquals("1", query(jdbc(connection(id), password), "SELECT 1"));
    }

    static String psql(String uri, String sql) throws Exception {
        var p = new ProcessBuilder("psql", uri, "-X", "-A", "-t", "-c", sql).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertEquals(0, p.waitFor(), out);
        return out;
    }

    static List<String> lines(String text) {
        return List.of(text.split("\n"));
    }
}
