package dev.hearth.databases;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import dev.hearth.server.disks.Disks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A database's past: a branch at a moment holds exactly the commits made at or before it, replayed
 * from the database's first base and its archived (or not yet archived) WAL.
 */
@HearthServerTest(databases = true)
class DatabaseHistoryTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeAll
    void start() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    @Test
    void aBranchAtAMomentHasTheCommitsMadeAtOrBeforeIt() throws Exception {
        var made = create(Map.of("name", "ledger"));
        String id = made.path("id").asText();
        Instant created = Instant.parse(made.path("created_at").asText());
        var c = connection(id);
        Instant afterOne;
        Instant afterTwo;
        try (var session = DatabasesTest.jdbc(c, c.path("password").asText())) {
            run(session, "CREATE TABLE entries (n int)");
            run(session, "INSERT INTO entries VALUES (1)");
            afterOne = pause();
            run(session, "INSERT INTO entries VALUES (2)");
            afterTwo = pause();
            run(session, "INSERT INTO entries VALUES (3)");
        }

        var history = admin.get("/databases/" + id + "/history").path("history");
        assertTrue(!Instant.parse(history.path("earliest").asText()).isAfter(afterOne.minusMillis(50)), history.toString());
        assertTrue(Instant.parse(history.path("earliest").asText()).isAfter(created.minusSeconds(1)), history.toString());
        assertTrue(history.path("bases").asInt() >= 1, history.toString());
        assertEquals(86_400, history.path("window_seconds").asInt(), history.toString());
        assertEquals(24, made.path("history_hours").asInt(), "the default window");
        assertEquals(48, admin.patch("/databases/" + id, Map.of("history_hours", 48)).path("database").path("history_hours").asInt());
        assertEquals(172_800, admin.get("/databases/" + id + "/history").path("history").path("window_seconds").asInt());
        for (int bad : new int[] {0, 721}) {
            assertEquals(400, admin.send("PATCH", "/databases/" + id, Map.of("history_hours", bad), Map.of()).status());
        }

        assertEquals("1", entries(branch("at-one", id, afterOne)));
        assertEquals("1,2", entries(branch("at-two", id, afterTwo)));
        assertEquals("1,2,3", entries(branch("at-now", id, Instant.now())), "no commit after the moment: all of them");
        assertEquals("1,2", entries(branch("branch-of-branch", lookup("at-two"), Instant.now())),
                "a branch keeps a history of its own");
    }

    @Test
    void aRestoreRollsBackInPlaceAndKeepsWhatItWasAsABranch() throws Exception {
        String id = create(Map.of("name", "orders")).path("id").asText();
        var c = connection(id);
        Instant beforeMistake;
        try (var session = DatabasesTest.jdbc(c, c.path("password").asText())) {
            run(session, "CREATE TABLE entries (n int)");
            run(session, "INSERT INTO entries VALUES (1), (2)");
            beforeMistake = pause();
            run(session, "DELETE FROM entries");
        }
        var restored = admin.post("/databases/" + id + "/restore", Map.of("at", beforeMistake.toString()));
        assertEquals(id, restored.path("database").path("id").asText());
        assertEquals("ready", restored.path("database").path("state").asText());
        var backup = restored.path("backup");
        assertTrue(backup.path("name").asText().startsWith("orders-before-"), backup.toString());
        assertEquals(id, backup.path("parent").asText());

        assertEquals("1,2", DatabasesTest.query(DatabasesTest.jdbc(c, c.path("password").asText()),
                "SELECT string_agg(n::text, ',' ORDER BY n) FROM entries"), "the same port and password reach the past");
        assertEquals(null, entries(backup.path("id").asText()), "what it was before the restore is a branch");
        assertEquals("1,2", entries(branch("after-restore", id, Instant.now())), "its history goes on");
    }

    /**
     * A restore cut short by a crash, as its journal and disks are left at two points: before any
     * rename (undone: the database as it was) and halfway through the renames (finished: the
     * database holds what the recovered disks hold, here its first base: no table yet).
     */
    @Test
    void aRestoreCutShortIsUndoneOrFinishedAtTheNextStart() throws Exception {
        String undone = create(Map.of("name", "undone")).path("id").asText();
        String finished = create(Map.of("name", "finished")).path("id").asText();
        for (String id : new String[] {undone, finished}) {
            var c = connection(id);
            DatabasesTest.execute(DatabasesTest.jdbc(c, c.path("password").asText()),
                    "CREATE TABLE entries (n int); INSERT INTO entries VALUES (1)");
        }
        Path root = server.dataDir.resolve("databases");
        server.restartAfter(() -> {
            for (String id : new String[] {undone, finished}) {
                var disks = new Disks();
                disks.unmount(root.resolve("clusters").resolve(id).resolve("data").resolve("pg_wal"));
                disks.unmount(root.resolve("clusters").resolve(id));
                String backup = "0000000000backup" + id.substring(16);
                String temp = "000000000000temp" + id.substring(16);
                Path base;
                try (var bases = Files.list(root.resolve("history").resolve(id).resolve("bases"))) {
                    base = bases.sorted().findFirst().orElseThrow();
                }
                Files.copy(base.resolve("data.img"), root.resolve("disks").resolve(temp + ".img"));
                Files.copy(base.resolve("wal.img"), root.resolve("disks").resolve(temp + ".wal.img"));
                Files.createDirectories(root.resolve("restores"));
                Files.writeString(root.resolve("restores").resolve(id), backup + " " + temp + "\n");
                if (id.equals(finished)) {
                    Files.move(root.resolve("disks").resolve(id + ".img"), root.resolve("disks").resolve(backup + ".img"));
                }
            }
        });
        admin = server.admin();
        assertEquals("1", entries(undone), "before any rename: as it was");
        var c = connection(finished);
        assertEquals(null, DatabasesTest.query(DatabasesTest.jdbc(c, c.path("password").asText()),
                "SELECT to_regclass('entries')::text"), "halfway: finished, with what the recovered disks hold");
        assertTrue(Files.notExists(root.resolve("restores").resolve(undone)) && Files.notExists(root.resolve("restores")
                .resolve(finished)), "both journals are settled");
    }

    /** An LSN (as pg_current_wal_lsn() shows it) names a moment too: the transactions committed before it. */
    @Test
    void aBranchAtAnLsnHasTheTransactionsCommittedBeforeIt() throws Exception {
        String id = create(Map.of("name", "journal")).path("id").asText();
        var c = connection(id);
        String afterOne;
        try (var session = DatabasesTest.jdbc(c, c.path("password").asText())) {
            run(session, "CREATE TABLE entries (n int)");
            run(session, "INSERT INTO entries VALUES (1)");
            try (var rs = session.createStatement().executeQuery("SELECT pg_current_wal_lsn()")) {
                rs.next();
                afterOne = rs.getString(1);
            }
            run(session, "INSERT INTO entries VALUES (2)");
        }
        assertEquals("1", entries(create(Map.of("name", "lsn-one", "from_database", id, "at", afterOne.toLowerCase()))
                .path("id").asText()));

        var past = admin.send("POST", "/workspaces/" + ws + "/databases", Map.of("name", "nope", "from_database", id,
                "at", "FF/0"), Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertError(past, 400, "invalid_request");
        var details = past.body().path("error").path("details");
        assertTrue(past.body().path("error").path("message").asText().contains("past the end of its WAL"), past.body()::toString);
        assertTrue(details.path("latest_lsn").asText().matches("[0-9A-F]+/[0-9A-F]+"), past.body().toString());
        assertTrue(details.path("earliest_lsn").asText().matches("[0-9A-F]+/[0-9A-F]+"), past.body().toString());
        var before = admin.send("POST", "/workspaces/" + ws + "/databases", Map.of("name", "nope", "from_database", id,
                "at", "0/10"), Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertError(before, 400, "invalid_request");
        assertTrue(before.body().path("error").path("message").asText().contains("before the history"), before.body()::toString);
    }

    @Test
    void aMomentOutsideTheHistoryIsRefusedWithItsBounds() throws Exception {
        String id = create(Map.of("name", "bounded")).path("id").asText();
        for (Instant outside : new Instant[] {Instant.now().plusSeconds(3600), Instant.parse("2020-01-01T00:00:00Z")}) {
            var r = admin.send("POST", "/workspaces/" + ws + "/databases", Map.of("name", "nope", "from_database", id,
                    "at", outside.toString()), Map.of("Idempotency-Key", UUID.randomUUID().toString()));
            assertError(r, 400, "invalid_request");
            var details = r.body().path("error").path("details");
            assertTrue(details.path("fields").has("at"), r.body().toString());
            assertTrue(Instant.parse(details.path("earliest").asText()).isBefore(Instant.now()), r.body().toString());
        }
        var r = admin.send("POST", "/workspaces/" + ws + "/databases", Map.of("name", "nope", "from_database", id,
                "at", "yesterday"), Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertError(r, 400, "invalid_request");
        var both = admin.send("POST", "/workspaces/" + ws + "/databases", Map.of("name", "nope", "from_database", id,
                "at", Instant.now().toString(), "from_checkpoint", "x"), Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertError(both, 400, "invalid_request");
        assertEquals(404, admin.send("GET", "/databases/nope?workspace=" + ws, null, Map.of()).status(),
                "nothing half-made is left");
    }

    private static void run(Connection session, String sql) throws Exception {
        session.createStatement().execute(sql);
    }

    /** A moment strictly between the commit before and the one after. */
    private static Instant pause() throws InterruptedException {
        Thread.sleep(50);
        Instant moment = Instant.now();
        Thread.sleep(50);
        return moment;
    }

    private String branch(String name, String from, Instant at) {
        return create(Map.of("name", name, "from_database", from, "at", at.toString())).path("id").asText();
    }

    private String entries(String db) throws Exception {
        var c = connection(db);
        return DatabasesTest.query(DatabasesTest.jdbc(c, c.path("password").asText()),
                "SELECT string_agg(n::text, ',' ORDER BY n) FROM entries");
    }

    private String lookup(String name) {
        return admin.get("/databases/" + name + "?workspace=" + ws).path("database").path("id").asText();
    }

    private JsonNode create(Map<String, Object> body) {
        var r = admin.send("POST", "/workspaces/" + ws + "/databases", body,
                Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertEquals(201, r.status(), () -> r.body().toString());
        return r.body().path("database");
    }

    private JsonNode connection(String db) {
        return admin.get("/databases/" + db + "/connection").path("connection");
    }
}
