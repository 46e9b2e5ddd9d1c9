package dev.hearth.server.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Commands Hearth runs: their output and exit code, and a time limit that holds. */
@Tag("unit")
class CommandsTest {
    @Test
    void aCommandAnswersItsOutputAndExitCode() {
        var result = Commands.run(List.of("sh", "-c", "echo out; echo err >&2; exit 3"), Duration.ofSeconds(10));
        assertEquals(3, result.exitCode());
        assertEquals("out\n", result.stdout());
        assertEquals("err\n", result.stderr());
    }

    @Test
    void aCommandThatOutlivesItsLimitIsEndedThoughItsOutputIsStillOpen() {
        var failure = assertThrows(Commands.Failure.class,
                () -> Commands.run(List.of("sleep", "30"), Duration.ofMillis(300)));
        assertTrue(failure.getMessage().contains("did not finish"), failure::getMessage);
    }
}
