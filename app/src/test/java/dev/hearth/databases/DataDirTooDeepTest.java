package dev.hearth.databases;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.fs.Disk;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Under a data directory too deep for PostgreSQL's Unix sockets (107 bytes) no cluster can start:
 * the server says so at start, and every database route says why, instead of a wake that fails.
 */
class DataDirTooDeepTest {

    @Test
    void aDataDirectoryTooDeepForClustersSocketsIsRefusedForDatabasesWithTheReason() throws Exception {
        Path parent = Files.createTempDirectory("hearth-test");
        Path deep = Files.createDirectories(parent.resolve("a-data-directory-with-a-name-long-enough-to-overflow"));
        try (var server = TestServer.startOn(deep, 0, c -> c)) {
            var refused = server.admin().send("POST", "/workspaces/" + TestServer.workspace(server.admin())
                    .path("id").asText() + "/databases", Map.of("name", "deep"), TestComputers.key());
            assertError(refused, 503, "runtime_unavailable");
            String message = refused.body().path("error").path("message").asText();
            assertTrue(message.contains("too long for PostgreSQL's Unix sockets"), message);
            assertTrue(message.contains("choose a --data-dir at most"), message);
        } finally {
            Disk.deleteTree(parent);
        }
    }
}
