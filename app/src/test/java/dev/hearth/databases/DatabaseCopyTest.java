package dev.hearth.databases;

import static dev.hearth.support.HearthServerExtension.assumeDatabases;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.client.HearthClient;
import dev.hearth.server.disks.Disks;
import dev.hearth.support.ChildServer;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Databases on a volume whose copies share blocks (the XFS Hearth makes when the data directory's
 * own file system, ext4 here, has no reflinks): a checkpoint taken while rows are being committed
 * holds every row committed before it began and no half of any other; a branch equals its source
 * and diverges alone; the volume is mounted again after a restart of the host.
 */
class DatabaseCopyTest {
    // Rows of about 1 KiB: 64 MiB of table.
    private static final int ROWS = 64_000;

    @Test
    void aCheckpointUnderWritesHoldsWhatWasCommittedAndABranchDivergesAlone(@TempDir Path tmp) throws Exception {
        assumeDatabases();
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Path dir = tmp.resolve("data");
        try (var server = TestServer.startOn(dir, ChildServer.freePort(), c -> c)) {
            var admin = server.admin();
            assertEquals("xfs", Files.getFileStore(dir.resolve("databases")).type(), "the volume Hearth made");
            String ws = TestServer.workspace(admin).path("id").asText();
            var source = create(admin, ws, "source");
            execute(source, "CREATE TABLE filler (n int PRIMARY KEY, pad text);"
                    + "INSERT INTO filler SELECT n, repeat(md5(n::text), 32) FROM generate_series(1, " + ROWS + ") n;"
                    + "CREATE TABLE log (n int PRIMARY KEY)");
            String sum = query(source, checksum());

            var committed = new AtomicLong();
            var stop = new AtomicBoolean();
            long before;
            JsonNode checkpoint;
            try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
                var writer = pool.submit(() -> write(source, committed, stop));
                while (committed.get() < 20) {
                    Thread.sleep(10);
                }
                before = committed.get();
                checkpoint = checkpoint(admin, source.path("id").asText());
                stop.set(true);
                writer.get();
            }
            var branch = create(admin, ws, "branch", Map.of("from_checkpoint", checkpoint.path("id").asText()));
            long rows = Long.parseLong(query(branch, "SELECT count(*) FROM log"));
            assertTrue(rows >= before, "every row committed before the checkpoint began: " + rows + " < " + before);
            assertEquals(String.valueOf(rows), query(branch, "SELECT coalesce(max(n), 0) FROM log"),
                    "rows in commit order, none missing: a consistent copy");
            assertEquals(sum, query(branch, checksum()), "the branch's table is its source's");

            execute(branch, "DELETE FROM filler WHERE n % 2 = 0");
            assertEquals(String.valueOf(ROWS / 2), query(branch, "SELECT count(*) FROM filler"));
            assertEquals(sum, query(source, checksum()), "the source is untouched by the branch's writes");
        }
    }

    @Test
    void theVolumeIsMountedAgainAfterTheHostRestarts(@TempDir Path tmp) throws Exception {
        assumeDatabases();
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        var first = TestServer.startOn(dir, port, c -> c);
        var db = create(first.admin(), TestServer.workspace(first.admin()).path("id").asText(), "kept");
        execute(db, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('on the volume')");
        first.stop();
        // What a reboot does: nothing stays mounted.
        TestServer.tearDown(dir);
        assertTrue(!Disks.mounted(dir.resolve("databases")) && Files.exists(dir.resolve("databases.xfs")));
        try (var again = TestServer.startOn(dir, port, c -> c)) {
            assertTrue(Disks.mounted(dir.resolve("databases")), "mounted again at start");
            var c = again.admin().get("/databases/" + db.path("id").asText() + "/connection").path("connection");
            assertEquals("on the volume", DatabasesTest.query(DatabasesTest.jdbc(c, c.path("password").asText()),
                    "SELECT v FROM kept"));
        }
    }

    /** Commits one row at a time, numbered in order, until told to stop; counts those committed. */
    private static Void write(JsonNode db, AtomicLong committed, AtomicBoolean stop) throws SQLException {
        try (Connection c = jdbc(db)) {
            var insert = c.prepareStatement("INSERT INTO log VALUES (?)");
            while (!stop.get()) {
                insert.setLong(1, committed.get() + 1);
                insert.executeUpdate();
                committed.incrementAndGet();
            }
        }
        return null;
    }

    private static String checksum() {
        return "SELECT md5(string_agg(md5(n::text || pad), '' ORDER BY n)) FROM filler";
    }

    /** A new database's connection details, with its id. */
    private static JsonNode create(HearthClient admin, String ws, String name) {
        return create(admin, ws, name, Map.of());
    }

    private static JsonNode create(HearthClient admin, String ws, String name, Map<String, Object> extra) {
        var body = new HashMap<String, Object>(extra);
        body.put("name", name);
        String id = admin.create("/workspaces/" + ws + "/databases", body).path("database").path("id").asText();
        var c = admin.get("/databases/" + id + "/connection").path("connection").deepCopy();
        return ((ObjectNode) c).put("id", id);
    }

    private static JsonNode checkpoint(HearthClient admin, String db) {
        var accepted = admin.create("/databases/" + db + "/checkpoints", Map.of("name", "under-writes"));
        var op = admin.get("/operations/" + accepted.path("operations").get(0).asText() + "?wait=60").path("operation");
        assertEquals("succeeded", op.path("state").asText(), op::toString);
        return accepted.path("checkpoint");
    }

    private static Connection jdbc(JsonNode db) throws SQLException {
        return DatabasesTest.jdbc(db, db.path("password").asText());
    }

    private static String query(JsonNode db, String sql) throws SQLException {
        return DatabasesTest.query(jdbc(db), sql);
    }

    private static void execute(JsonNode db, String sql) throws SQLException {
        DatabasesTest.execute(jdbc(db), sql);
    }
}
