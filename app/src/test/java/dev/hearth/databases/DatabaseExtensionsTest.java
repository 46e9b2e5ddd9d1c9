package dev.hearth.databases;

import static dev.hearth.databases.DatabasesTest.execute;
import static dev.hearth.databases.DatabasesTest.jdbc;
import static dev.hearth.databases.DatabasesTest.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Extensions a database's owner (no superuser) creates itself: PostgreSQL's trusted ones, and the
 * allow-listed untrusted ones through pgextwlist, usable by the owner after they are made; any other
 * untrusted one is refused, and the list cannot be changed from a session.
 */
@HearthServerTest(databases = true)
class DatabaseExtensionsTest {
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeAll
    void start() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    private JsonNode connection(String name) {
        return admin.get("/databases/" + create(name) + "/connection").path("connection");
    }

    private String create(String name) {
        return admin.create("/workspaces/" + ws + "/databases", Map.of("name", name)).path("database").path("id").asText();
    }

    @Test
    void theOwnerCreatesTrustedExtensionsAndNoOther() throws Exception {
        var c = connection("extended");
        String password = c.path("password").asText();
        execute(jdbc(c, password), "CREATE EXTENSION pgcrypto; CREATE EXTENSION citext; CREATE EXTENSION pg_trgm; "
                + "CREATE EXTENSION hstore; CREATE EXTENSION \"uuid-ossp\"");
        assertEquals("60", query(jdbc(c, password), "SELECT length(encode(digest('x', 'sha256'), 'hex')) - 4"));
        var refused = assertThrows(SQLException.class, () -> execute(jdbc(c, password), "CREATE EXTENSION file_fdw"));
        assertTrue(refused.getMessage().contains("permission denied to create extension"), refused::getMessage);
        assertEquals("f", query(jdbc(c, password), "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"),
                "the owner is no superuser");
    }

    @Test
    void theOwnerCreatesAllowListedExtensionsAndUsesThem() throws Exception {
        String id = create("planner");
        var c = admin.get("/databases/" + id + "/connection").path("connection");
        String password = c.path("password").asText();
        execute(jdbc(c, password), "CREATE EXTENSION hypopg; CREATE TABLE orders (id bigint, customer int)");
        assertEquals("1", query(jdbc(c, password),
                "SELECT count(*) FROM hypopg_create_index('CREATE INDEX ON orders (customer)')"));
        execute(jdbc(c, password), "CREATE SCHEMA partman; CREATE EXTENSION pg_partman SCHEMA partman; "
                + "CREATE TABLE events (id bigint, at timestamptz NOT NULL) PARTITION BY RANGE (at)");
        assertEquals("t", query(jdbc(c, password),
                "SELECT partman.create_parent('public.events', 'at', 'native', 'daily')"));
        assertTrue(Integer.parseInt(query(jdbc(c, password),
                "SELECT count(*) FROM pg_inherits WHERE inhparent = 'events'::regclass")) > 1, "partitions made");
        execute(jdbc(c, password), "CREATE EXTENSION postgres_fdw; CREATE SERVER elsewhere FOREIGN DATA WRAPPER "
                + "postgres_fdw OPTIONS (host '127.0.0.1', dbname 'x')");
        assertEquals("f", query(jdbc(c, password), "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"));
        admin.post("/databases/" + id + "/sleep", Map.of());
        assertEquals("1", query(jdbc(c, password), "SELECT count(*) FROM hypopg_create_index('CREATE INDEX ON orders (id)')"),
                "what was made outlives a sleep and wake");

        var change = assertThrows(SQLException.class,
                () -> execute(jdbc(c, password), "SET extwlist.extensions = 'file_fdw'"));
        assertTrue(change.getMessage().contains("permission denied to set parameter"), change::getMessage);
        var listed = query(jdbc(c, password), "SHOW extwlist.extensions");
        assertTrue(listed.contains("hypopg") && listed.contains("pg_partman") && !listed.contains("file_fdw"), listed);
        var refused = assertThrows(SQLException.class, () -> execute(jdbc(c, password), "CREATE EXTENSION pageinspect"));
        assertTrue(refused.getMessage().contains("permission denied to create extension"), refused::getMessage);
    }
}
