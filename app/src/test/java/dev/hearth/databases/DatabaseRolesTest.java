package dev.hearth.databases;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL roles and databases inside a Hearth database: made through the API, reached with the
 * password it shows once (directly over TLS and through the pooler), none a superuser, and kept
 * through sleep, a checkpoint's branch and an owner's credential reset.
 */
@HearthServerTest(databases = true)
class DatabaseRolesTest {
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeAll
    void start() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    @Test
    void aRoleAndADatabaseOfItsOwnConnectAndSurviveSleepBranchesAndResets() throws Exception {
        String id = create("warehouse");
        assertEquals(List.of("warehouse:true"), roles(id), "the owner role alone at first (and it wakes the database)");
        assertEquals("ready", admin.get("/databases/" + id).path("database").path("state").asText());

        var made = key("POST", "/databases/" + id + "/roles", Map.of("name", "reporter"));
        assertEquals(201, made.status(), () -> made.body().toString());
        assertEquals("reporter", made.body().path("role").path("name").asText());
        var c = made.body().path("connection");
        assertEquals("reporter", c.path("user").asText());
        assertEquals("shown_once", c.path("password_status").asText());
        String password = c.path("password").asText();
        assertEquals(List.of("reporter:false", "warehouse:true"), roles(id));

        // Directly over TLS and through the pooler, to the default database; never a superuser.
        assertEquals("t", DatabasesTest.query(DatabasesTest.jdbc(c, password),
                "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
        assertEquals("reporter", DatabasesTest.query(DatabasesTest.pooled(c, password), "SELECT current_user"));
        assertEquals("f,t,f,f,f", DatabasesTest.query(DatabasesTest.jdbc(c, password), "SELECT concat_ws(',', rolsuper, "
                + "rolcreatedb, rolcreaterole, rolreplication, rolbypassrls) FROM pg_roles WHERE rolname = current_user"));

        // A database of its own, where it creates what it likes.
        var db = key("POST", "/databases/" + id + "/pg_databases", Map.of("name", "analytics", "owner_name", "reporter"));
        assertEquals(201, db.status(), () -> db.body().toString());
        assertEquals("reporter", db.body().path("pg_database").path("owner_name").asText());
        DatabasesTest.execute(connect(c, "analytics", password), "CREATE TABLE facts (n int); INSERT INTO facts VALUES (7)");
        var owned = admin.create("/databases/" + id + "/pg_databases", Map.of("name", "scratch"));
        assertEquals("warehouse", owned.path("pg_database").path("owner_name").asText(), "the owner role by default");
        assertEquals(List.of("analytics:reporter:false", "scratch:warehouse:false", "warehouse:warehouse:true"),
                databases(id));

        // It sees none of the owner's tables until the owner grants it what it may (the owner cannot grant its role).
        var ownerConnection = admin.get("/databases/" + id + "/connection").path("connection");
        String ownerPassword = ownerConnection.path("password").asText();
        DatabasesTest.execute(DatabasesTest.jdbc(ownerConnection, ownerPassword), "CREATE TABLE ledger (n int)");
        var denied = assertThrows(SQLException.class, () -> DatabasesTest.query(DatabasesTest.jdbc(c, password),
                "SELECT count(*) FROM ledger"));
        assertTrue(denied.getMessage().contains("permission denied"), denied::getMessage);
        var noAdmin = assertThrows(SQLException.class, () -> DatabasesTest.execute(DatabasesTest.jdbc(ownerConnection,
                ownerPassword), "GRANT warehouse TO reporter"));
        assertTrue(noAdmin.getMessage().contains("admin option"), noAdmin::getMessage);
        DatabasesTest.execute(DatabasesTest.jdbc(ownerConnection, ownerPassword), "GRANT SELECT ON ledger TO reporter");
        assertEquals("0", DatabasesTest.query(DatabasesTest.jdbc(c, password), "SELECT count(*) FROM ledger"));

        // An owner's credential reset leaves other roles alone.
        admin.post("/databases/" + id + "/reset_credentials", null);
        assertEquals("7", DatabasesTest.query(connect(c, "analytics", password), "SELECT n FROM facts"));

        // Sleep and wake: they live in the cluster.
        assertEquals("sleeping", admin.post("/databases/" + id + "/sleep", Map.of()).path("database").path("state").asText());
        assertEquals("7", DatabasesTest.query(connect(c, "analytics", password), "SELECT n FROM facts"));
        admin.post("/databases/" + id + "/sleep", Map.of());
        assertEquals(List.of("reporter:false", "warehouse:true"), roles(id));

        // A branch of a checkpoint has them too, with the same password.
        var checkpoint = key("POST", "/databases/" + id + "/checkpoints", Map.of("name", "with-roles")).body();
        assertEquals("succeeded", admin.get("/operations/" + checkpoint.path("operations").get(0).asText() + "?wait=60")
                .path("operation").path("state").asText());
        var branch = key("POST", "/workspaces/" + ws + "/databases", Map.of("name", "warehouse-branch",
                "from_checkpoint", checkpoint.path("checkpoint").path("id").asText())).body().path("database");
        var branched = admin.get("/databases/" + branch.path("id").asText() + "/connection").path("connection");
        assertEquals("7", DatabasesTest.query(DriverManager.getConnection("jdbc:postgresql://"
                + branched.path("host").asText() + ":" + branched.path("port").asInt()
                + "/analytics?sslmode=require&connectTimeout=30", "reporter", password), "SELECT n FROM facts"));

        // A role that owns a database is not dropped: PostgreSQL's reason, 409; it still logs in.
        var owns = admin.send("DELETE", "/databases/" + id + "/roles/reporter", null, Map.of());
        assertError(owns, 409, "conflict");
        assertTrue(owns.body().path("error").path("message").asText().contains("analytics"), owns.body()::toString);
        assertEquals("1", DatabasesTest.query(DatabasesTest.jdbc(c, password), "SELECT 1"));
        assertEquals(200, admin.send("DELETE", "/databases/" + id + "/pg_databases/analytics", null, Map.of()).status());
        assertEquals(List.of("scratch:warehouse:false", "warehouse:warehouse:true"), databases(id));
        var open = DatabasesTest.jdbc(c, password);
        // Owning nothing now, it goes with the privileges granted to it (SELECT on ledger).
        var gone = admin.send("DELETE", "/databases/" + id + "/roles/reporter", null, Map.of());
        assertEquals(200, gone.status(), () -> gone.body().toString());
        assertEquals(List.of("warehouse:true"), roles(id));
        assertThrows(SQLException.class, () -> open.createStatement().execute("SELECT 1"), "its sessions end");
        open.close();
        assertThrows(SQLException.class, () -> DatabasesTest.jdbc(c, password).close());
        assertEquals(404, admin.send("DELETE", "/databases/" + id + "/roles/reporter", null, Map.of()).status());
    }

    @Test
    void aResetPasswordRefusesTheOldOneAndEndsItsSessions() throws Exception {
        String id = create("resets");
        var c = key("POST", "/databases/" + id + "/roles", Map.of("name", "app_user")).body().path("connection");
        String first = c.path("password").asText();
        var open = DatabasesTest.jdbc(c, first);
        var r = admin.send("POST", "/databases/" + id + "/roles/app_user/reset_password", null,
                Map.of("Idempotency-Key", "reset-app-user"));
        assertEquals(200, r.status(), () -> r.body().toString());
        String second = r.body().path("connection").path("password").asText();
        assertNotEquals(first, second);
        assertThrows(SQLException.class, () -> open.createStatement().execute("SELECT 1"), "its sessions end");
        open.close();
        assertThrows(SQLException.class, () -> DatabasesTest.jdbc(c, first).close());
        assertThrows(SQLException.class, () -> DatabasesTest.pooled(c, first).close());
        assertEquals("1", DatabasesTest.query(DatabasesTest.jdbc(c, second), "SELECT 1"));
        assertEquals("1", DatabasesTest.query(DatabasesTest.pooled(c, second), "SELECT 1"));
        var replay = admin.send("POST", "/databases/" + id + "/roles/app_user/reset_password", null,
                Map.of("Idempotency-Key", "reset-app-user"));
        assertEquals("********", replay.body().path("connection").path("password").asText(), "a replay is redacted");

        // The owner role's reset is the database's credential reset: its connection follows.
        var owner = admin.post("/databases/" + id + "/roles/resets/reset_password", null).path("connection");
        assertEquals(owner.path("password").asText(),
                admin.get("/databases/" + id + "/connection").path("connection").path("password").asText());
        assertEquals("1", DatabasesTest.query(DatabasesTest.jdbc(owner, owner.path("password").asText()), "SELECT 1"));
        assertEquals(404, admin.send("POST", "/databases/" + id + "/roles/nobody/reset_password", null, Map.of()).status());
        assertEquals(404, admin.send("POST", "/databases/" + id + "/roles/pgbouncer/reset_password", null, Map.of()).status());
    }

    @Test
    void theOwnerRoleAndDefaultDatabaseStayAndBadNamesAreRefused() throws Exception {
        String id = create("guarded");
        assertError(admin.send("DELETE", "/databases/" + id + "/roles/guarded", null, Map.of()), 409, "protected");
        assertError(admin.send("DELETE", "/databases/" + id + "/pg_databases/guarded", null, Map.of()), 409, "protected");
        assertEquals(404, admin.send("DELETE", "/databases/" + id + "/pg_databases/nothing", null, Map.of()).status());
        assertEquals(404, admin.send("DELETE", "/databases/" + id + "/roles/Not-A-Name", null, Map.of()).status());
        for (String bad : new String[] {"postgres", "pgbouncer", "pg_monitor", "Upper", "1st", "a b", "x\"; DROP ROLE y",
                "", "a".repeat(64)}) {
            var r = key("POST", "/databases/" + id + "/roles", Map.of("name", bad));
            assertError(r, 400, "invalid_request");
            assertTrue(r.body().path("error").path("details").path("fields").has("name"), r.body()::toString);
        }
        for (String bad : new String[] {"template1", "postgres", "pg_x", "Db"}) {
            assertError(key("POST", "/databases/" + id + "/pg_databases", Map.of("name", bad)), 400, "invalid_request");
        }
        var noOwner = key("POST", "/databases/" + id + "/pg_databases", Map.of("name", "orphan", "owner_name", "ghost"));
        assertError(noOwner, 400, "invalid_request");
        assertTrue(noOwner.body().path("error").path("details").path("fields").has("owner_name"), noOwner.body()::toString);
        assertError(key("POST", "/databases/" + id + "/roles", Map.of("name", "guarded")), 409, "conflict");
        assertEquals(201, key("POST", "/databases/" + id + "/roles", Map.of("name", "twice")).status());
        assertError(key("POST", "/databases/" + id + "/roles", Map.of("name", "twice")), 409, "conflict");
        assertEquals(201, key("POST", "/databases/" + id + "/pg_databases", Map.of("name", "once")).status());
        assertError(key("POST", "/databases/" + id + "/pg_databases", Map.of("name", "once")), 409, "conflict");
    }

    private static Connection connect(JsonNode c, String database, String password) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + c.path("host").asText() + ":" + c.path("port").asInt()
                + "/" + database + "?sslmode=require&connectTimeout=30", c.path("user").asText(), password);
    }

    private List<String> roles(String id) {
        var names = new ArrayList<String>();
        admin.get("/databases/" + id + "/roles").path("roles")
                .forEach(r -> names.add(r.path("name").asText() + ":" + r.path("owner").asBoolean()));
        return names;
    }

    private List<String> databases(String id) {
        var names = new ArrayList<String>();
        admin.get("/databases/" + id + "/pg_databases").path("pg_databases").forEach(d -> names.add(
                d.path("name").asText() + ":" + d.path("owner_name").asText() + ":" + d.path("default").asBoolean()));
        return names;
    }

    private HearthClient.Response key(String method, String path, Object body) {
        return admin.send(method, path, body, Map.of("Idempotency-Key", UUID.randomUUID().toString()));
    }

    private String create(String name) {
        var r = key("POST", "/workspaces/" + ws + "/databases", Map.of("name", name));
        assertEquals(201, r.status(), () -> r.body().toString());
        return r.body().path("database").path("id").asText();
    }
}
