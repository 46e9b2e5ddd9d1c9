package dev.hearth.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.server.HearthServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;

/**
 * The short form of {@code bench/run ProbeBench}: every operation of the served OpenAPI document,
 * valid and wrong-typed, malformed, with dot and encoded path segments and header cases, against a
 * real server. No answer is a 5xx, every error is the envelope, and every status and code is one the
 * document promises for the operation.
 */
class ProbeShortTest {
    @Test
    void everyOperationAnswersOnlyWhatTheDocumentPromises() throws Exception {
        // PostgreSQL's OS user must pass through to the data directory, as in ProbeBench.
        Path dataDir = Files.createTempDirectory("hearth-fuzz",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x"))).resolve("data");
        try (var hearth = HearthServer.start(ProbeBench.config(dataDir))) {
            var tally = ProbeBench.run(hearth, dataDir, 4, false);
            tally.print();
            assertTrue(tally.clean(), "offending answers: see above");
        } finally {
            ComputerBench.TestCleanup.removeAll(dataDir);
        }
    }
}
