package dev.hearth.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.api.Json;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hearth databases roles ...}, {@code hearth databases dbs ...} and {@code hearth databases
 * time-travel ...} against a real server and cluster.
 */
@HearthServerTest(databases = true)
class DatabaseRolesCliTest {
    record Run(int code, String out, String err) {
    }

    @Injected
    private TestServer server;
    @TempDir
    Path config;

    private Run cli(String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        var env = Map.of("HEARTH_URL", server.baseUrl(), "HEARTH_KEY_FILE", server.dataDir.resolve("admin-key.json").toString());
        int code = Cli.run(args, new Cli.Context(env, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true),
                new PrintStream(err, true), config));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void rolesAndDatabasesFromTheCommandLine() throws Exception {
        cli("workspaces", "create", "cli-roles");
        assertEquals(0, cli("databases", "create", "books", "-w", "cli-roles").code());
        var made = cli("db", "roles", "create", "books", "reader", "-w", "cli-roles");
        assertEquals(0, made.code(), made.err());
        assertTrue(made.out().lines().anyMatch(l -> l.startsWith("USER") && l.endsWith(" reader")), made.out());
        String password = field(made.out(), "PASSWORD");
        String port = field(made.out(), "PORT");
        var listed = cli("db", "roles", "list", "books", "-w", "cli-roles");
        assertTrue(listed.out().lines().anyMatch(l -> l.startsWith("books") && l.endsWith("yes")), listed.out());
        assertTrue(listed.out().lines().anyMatch(l -> l.startsWith("reader") && l.endsWith("-")), listed.out());

        var db = cli("db", "dbs", "create", "books", "shelf", "--owner", "reader", "-w", "cli-roles");
        assertEquals(0, db.code(), db.err());
        assertTrue(db.out().lines().anyMatch(l -> l.startsWith("shelf") && l.contains("reader")), db.out());
        try (var session = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port
                + "/shelf?sslmode=require&connectTimeout=30", "reader", password)) {
            session.createStatement().execute("CREATE TABLE t (n int)");
        }
        var json = Json.mapper().readTree(cli("--json", "db", "dbs", "list", "books", "-w", "cli-roles").out());
        assertEquals(2, json.path("pg_databases").size(), json.toString());

        var reset = cli("db", "roles", "reset-password", "books", "reader", "-w", "cli-roles");
        assertEquals(0, reset.code(), reset.err());
        assertTrue(!field(reset.out(), "PASSWORD").equals(password), reset.out());
        var refused = cli("db", "roles", "delete", "books", "reader", "-w", "cli-roles");
        assertEquals(1, refused.code(), "it owns a database");
        assertTrue(refused.err().contains("shelf"), refused.err());
        assertEquals(0, cli("db", "dbs", "delete", "books", "shelf", "-w", "cli-roles").code());
        assertEquals(0, cli("db", "roles", "delete", "books", "reader", "-w", "cli-roles").code());
        assertEquals(1, cli("db", "roles", "delete", "books", "books", "-w", "cli-roles").code(), "the owner role stays");
    }

    @Test
    void aTimeTravelFromTheCommandLine() throws Exception {
        cli("workspaces", "create", "cli-past");
        assertEquals(0, cli("databases", "create", "notes", "-w", "cli-past").code());
        var open = cli("db", "time-travel", "open", "notes", "--at", java.time.Instant.now().toString(), "--ttl", "300",
                "-w", "cli-past");
        assertEquals(0, open.code(), open.err());
        var uri = java.net.URI.create(open.out().lines().filter(l -> l.startsWith("postgresql://")).findFirst().orElseThrow());
        String[] login = uri.getRawUserInfo().split(":", 2);
        try (var session = DriverManager.getConnection("jdbc:postgresql://" + uri.getHost() + ":" + uri.getPort()
                + uri.getPath() + "?sslmode=require", login[0], java.net.URLDecoder.decode(login[1], StandardCharsets.UTF_8));
             var rows = session.createStatement().executeQuery("SELECT pg_is_in_recovery()")) {
            rows.next();
            assertTrue(rows.getBoolean(1), "a time travel stays in recovery: read-only");
        }
        String id = open.out().lines().skip(1).findFirst().orElseThrow().split("\\s+")[0];
        assertTrue(cli("db", "time-travel", "list", "notes", "-w", "cli-past").out().contains(id));
        assertEquals(0, cli("db", "time-travel", "end", "notes", id, "-w", "cli-past").code());
        assertTrue(!cli("db", "time-travel", "list", "notes", "-w", "cli-past").out().contains(id));
        // psql --at: a time travel for one psql, ended when it exits.
        String now = java.time.Instant.now().toString();
        assertEquals(0, cli("psql", "notes", "-w", "cli-past", "--at", now, "--", "-c", "SELECT 1").code());
        assertEquals(1, cli("psql", "notes", "-w", "cli-past", "--at", now, "--", "-v", "ON_ERROR_STOP=1", "-c",
                "CREATE TABLE t (n int)").code(), "read-only");
        assertTrue(cli("db", "time-travel", "list", "notes", "-w", "cli-past", "--json").out().contains("[ ]")
                || cli("db", "time-travel", "list", "notes", "-w", "cli-past", "--json").out().contains("[]"));
    }

    private static String field(String out, String name) {
        return out.lines().filter(l -> l.startsWith(name + " ")).findFirst().orElseThrow().substring(14).strip();
    }
}
