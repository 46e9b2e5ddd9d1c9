package dev.hearth.databases;

import static dev.hearth.support.HearthServerExtension.assumeDatabases;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.support.ChildServer;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        String[] ids = ChildServer.startAndKill(dir, port, "databases").split(" ");
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
}
