package dev.hearth.databases;

import static dev.hearth.support.HearthServerExtension.assumeDatabases;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.support.ChildServer;
import dev.hearth.support.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** kill -9 of hearth serve with one database awake and one asleep (its reset just made): nothing acknowledged is lost. */
class DatabaseRecoveryTest {
    // Orphans of the killed server are re-parented to this test JVM (a child subreaper): once stopped
    // they are zombies until it reaps them, which ProcessHandle still calls alive.
    private static boolean running(long pid) throws Exception {
        Path stat = Path.of("/proc/" + pid + "/stat");
        if (!Files.exists(stat)) {
            return false;
        }
        String text = Files.readString(stat);
        return text.charAt(text.lastIndexOf(')') + 2) != 'Z';
    }

    @Test
    void aKilledServerKeepsEveryDatabaseItsDataAndItsCredentials(@TempDir Path tmp) throws Exception {
        assumeDatabases();
        // The clusters' OS user (postgres, when tests run as root) must pass through to the data directory.
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        String[] line = ChildServer.startAndKill(dir, port, "databases").split(" ");
        String[] ids = {line[0], line[1]};
        long postmaster = Long.parseLong(Files.readAllLines(dir.resolve("databases/clusters/" + ids[0]
                + "/data/postmaster.pid")).getFirst());
        long pooler = Long.parseLong(Files.readString(dir.resolve("databases/pgbouncer/run/pgbouncer.pid")).strip());
        assertTrue(ProcessHandle.of(postmaster).map(ProcessHandle::isAlive).orElse(false), "the awake cluster outlived its server");

        try (var restarted = TestServer.startOn(dir, port, c -> c)) {
            var admin = restarted.admin();
            assertFalse(running(postmaster), "the leftover cluster was stopped");
            assertFalse(running(pooler), "the leftover pgbouncer was stopped");
            for (String id : ids) {
                assertEquals("sleeping", admin.get("/databases/" + id).path("database").path("state").asText());
                var c = admin.get("/databases/" + id + "/connection").path("connection");
                assertFalse(c.path("reset_pending").asBoolean());
                String password = c.path("password").asText();
                assertEquals("acknowledged", DatabasesTest.query(DatabasesTest.jdbc(c, password), "SELECT v FROM kept"));
                assertEquals("acknowledged", DatabasesTest.query(DatabasesTest.pooled(c, password), "SELECT v FROM kept"));
            }
        }
    }

    /**
     * While the restarted server reconciles (its API answers 503 starting while it stops the cluster
     * its killed self left running), a connection to a database's port waits for its database
     * instead of being refused, and gets in.
     */
    @Test
    void aConnectionWhileTheRestartedServerReconcilesWaitsForItsDatabase(@TempDir Path tmp) throws Exception {
        assumeDatabases();
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        String[] line = ChildServer.startAndKill(dir, port, "databases").split(" ");
        var restarting = CompletableFuture.supplyAsync(() -> TestServer.startOn(dir, port, c -> c));
        try {
            assertTrue(starting(port, restarting), "the restarted server was caught reconciling");
            try (var jdbc = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + line[2]
                    + "/awake?sslmode=require&connectTimeout=60", "awake", line[3]);
                 var rows = jdbc.createStatement().executeQuery("SELECT v FROM kept")) {
                rows.next();
                assertEquals("acknowledged", rows.getString(1));
            }
        } finally {
            restarting.join().close();
        }
    }

    /** Waits until the server on {@code port} answers 503 starting; false if it was ready first. */
    private static boolean starting(int port, CompletableFuture<?> restarting) throws Exception {
        var http = HttpClient.newHttpClient();
        var health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/health")).build();
        while (!restarting.isDone()) {
            try {
                if (http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 503) {
                    return true;
                }
            } catch (java.io.IOException notListeningYet) {
                // the JVM is still starting
            }
            Thread.sleep(10);
        }
        return false;
    }

    /**
     * A create, a branch from a checkpoint or a delete cut short: after the restart every database
     * answers queries, the one being made exists or not at all, and no cluster lies on disk without one.
     */
    @ParameterizedTest
    @ValueSource(strings = {"db-create", "db-branch", "db-delete"})
    void aCreateOrDeleteCutShortLeavesOnlyWholeDatabases(String path, @TempDir Path tmp) throws Exception {
        assumeDatabases();
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        ChildServer.startAndKill(dir, port, "crash-" + path);
        Thread.sleep(1000);
        try (var restarted = TestServer.startOn(dir, port, c -> c)) {
            var admin = restarted.admin();
            var ids = new HashSet<String>();
            for (var db : admin.get("/workspaces/killed/databases").path("databases")) {
                String id = db.path("id").asText();
                ids.add(id);
                assertTrue(Set.of("sleeping", "ready").contains(db.path("state").asText()), db.toString());
                var c = admin.get("/databases/" + id + "/connection").path("connection");
                assertEquals("1", DatabasesTest.query(DatabasesTest.jdbc(c, c.path("password").asText()), "SELECT 1"));
            }
            try (var clusters = Files.list(dir.resolve("databases/clusters"))) {
                clusters.forEach(d -> assertTrue(ids.contains(d.getFileName().toString()), "a cluster of no database: " + d));
            }
        }
    }

    /**
     * kill -9 at a random point of a restore to a moment (rows 1 and 2 committed either side of it):
     * after the restart the database answers as it was (1,2) or fully restored (1), never between,
     * under its own name and password; a backup branch is there only when the restore finished.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 450, 550, 650, 750, 900, 2500})
    void aRestoreKilledAtAnyPointLeavesTheDatabaseAsItWasOrRestored(int afterMillis, @TempDir Path tmp) throws Exception {
        assumeDatabases();
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        String id = ChildServer.startAndKill(dir, port, "restoring", Duration.ofMillis(afterMillis)).split(" ")[0];
        try (var restarted = TestServer.startOn(dir, port, c -> c)) {
            var admin = restarted.admin();
            var db = admin.get("/databases/" + id).path("database");
            assertEquals("ledger", db.path("name").asText());
            var c = admin.get("/databases/" + id + "/connection").path("connection");
            String rows = DatabasesTest.query(DatabasesTest.jdbc(c, c.path("password").asText()),
                    "SELECT string_agg(n::text, ',' ORDER BY n) FROM entries");
            assertTrue(Set.of("1,2", "1").contains(rows), "as it was or restored, after " + afterMillis + " ms: " + rows);
            var names = new HashSet<String>();
            admin.get("/workspaces/killed/databases").path("databases").forEach(d -> names.add(d.path("name").asText()));
            boolean backup = names.stream().anyMatch(n -> n.startsWith("ledger-before-"));
            assertEquals(rows.equals("1"), backup, "a backup branch exactly when it was restored: " + names);
            assertEquals(backup ? 2 : 1, names.size(), names.toString());
        }
    }
}
