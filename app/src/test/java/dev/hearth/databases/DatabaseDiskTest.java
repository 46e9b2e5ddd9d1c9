package dev.hearth.databases;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A database's disk_mb on a real cluster: filling it is PostgreSQL's own "No space left on device"
 * error, the cluster runs on, space freed (DROP) is space to write again, the host never holds more than
 * the disk, and a disk grows at the cluster's next start.
 */
@HearthServerTest(databases = true)
class DatabaseDiskTest {
    private static final String FILL = "INSERT INTO filler SELECT repeat('x', 1800) FROM generate_series(1, 20000)";
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeAll
    void start() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    private JsonNode create(Map<String, Object> body) {
        var r = admin.send("POST", "/workspaces/" + ws + "/databases", body,
                Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertEquals(201, r.status(), () -> r.body().toString());
        return r.body().path("database");
    }

    private Path disks() {
        return server.dataDir.resolve("databases").resolve("disks");
    }

    /** Fills the database until PostgreSQL refuses (53100); the error it gave. */
    private static SQLException fill(Connection connection) throws SQLException {
        for (int i = 0; i < 40; i++) {
            try {
                connection.createStatement().execute(FILL);
            } catch (SQLException e) {
                return e;
            }
        }
        throw new AssertionError("800 MB went into a 256 MB disk");
    }

    @Test
    void aFullDiskIsAnErrorInSqlAndFreeingSpaceLetsItWriteAgain() throws Exception {
        var db = create(Map.of("name", "filled", "disk_mb", 256));
        assertEquals(256, db.path("disk_mb").asInt());
        String id = db.path("id").asText();
        var c = admin.get("/databases/" + id + "/connection").path("connection");
        try (var connection = DatabasesTest.jdbc(c, c.path("password").asText())) {
            connection.createStatement().execute("CREATE TABLE filler (v text)");
            var full = fill(connection);
            assertEquals("53100", full.getSQLState(), full::getMessage);
            assertTrue(full.getMessage().contains("No space left on device"), full::getMessage);
            // The same session goes on, and the cluster never restarted. DROP frees space at once (TRUNCATE
            // would need room for the table's new, empty files).
            assertTrue(connection.isValid(5));
            connection.createStatement().execute("DROP TABLE filler");
            connection.createStatement().execute("CREATE TABLE filler (v text)");
            connection.createStatement().execute(FILL);
            assertEquals("20000", DatabasesTest.query(DatabasesTest.jdbc(c, c.path("password").asText()),
                    "SELECT count(*) FROM filler"));
        }
        var after = admin.get("/databases/" + id).path("database");
        assertEquals("ready", after.path("state").asText());
        assertTrue(after.path("error").isNull(), after::toString);
        assertTrue(Files.size(disks().resolve(id + ".img")) <= 256L << 20, "the host holds no more than the disk");
    }

    @Test
    void aDiskGrowsAtTheNextStartAndNeverShrinks() throws Exception {
        var db = create(Map.of("name", "growing"));
        assertEquals(10240, db.path("disk_mb").asInt(), "the default");
        String id = db.path("id").asText();
        assertError(admin.send("PATCH", "/databases/" + id, Map.of("disk_mb", 1024), Map.of()), 400,
                "invalid_request");
        var r = admin.send("PATCH", "/databases/" + id, Map.of("disk_mb", 12288), Map.of());
        assertEquals(12288, r.body().path("database").path("disk_mb").asInt(), r.body()::toString);
        assertEquals(200, admin.send("POST", "/databases/" + id + "/wake", null, Map.of()).status());
        assertEquals(12288L << 20, Files.size(disks().resolve(id + ".img")));
        var c = admin.get("/databases/" + id + "/connection").path("connection");
        assertEquals("1", DatabasesTest.query(DatabasesTest.jdbc(c, c.path("password").asText()), "SELECT 1"));

        assertEquals(200, admin.send("DELETE", "/databases/" + id, null, Map.of()).status());
        assertFalse(Files.exists(disks().resolve(id + ".img")));
        assertFalse(Files.exists(disks().resolve(id + ".wal.img")));
        assertFalse(Files.readString(Path.of("/proc/self/mountinfo")).contains(id), "nothing of it is mounted");
    }

    @Test
    void aBranchGetsItsSourcesDiskAndNoLessThanItsCheckpointHolds() throws Exception {
        var source = create(Map.of("name", "source", "disk_mb", 300));
        String id = source.path("id").asText();
        var made = admin.create("/databases/" + id + "/checkpoints", Map.of("name", "first"));
        var op = admin.get("/operations/" + made.path("operations").get(0).asText() + "?wait=60").path("operation");
        assertEquals("succeeded", op.path("state").asText(), op::toString);
        var branch = create(Map.of("name", "branch", "from_checkpoint", "source/first"));
        assertEquals(300, branch.path("disk_mb").asInt(), "a branch keeps its source's disk");
        var c = admin.get("/databases/" + branch.path("id").asText() + "/connection").path("connection");
        assertEquals("1", DatabasesTest.query(DatabasesTest.jdbc(c, c.path("password").asText()), "SELECT 1"));
        var bigger = create(Map.of("name", "bigger", "from_checkpoint", "source/first", "disk_mb", 1024));
        assertEquals(1024, bigger.path("disk_mb").asInt());
        var bc = admin.get("/databases/" + bigger.path("id").asText() + "/connection").path("connection");
        assertEquals("1", DatabasesTest.query(DatabasesTest.jdbc(bc, bc.path("password").asText()), "SELECT 1"));
        long total = Files.getFileStore(server.dataDir.resolve("databases/clusters/" + bigger.path("id").asText()))
                .getTotalSpace();
        assertTrue(total > 900L << 20, "the copied disk grew to the branch's size: " + total);
        assertError(admin.send("POST", "/workspaces/" + ws + "/databases", Map.of("name", "smaller",
                "from_checkpoint", "source/first", "disk_mb", 256), Map.of("Idempotency-Key", "smaller")), 400,
                "invalid_request");
    }
}
