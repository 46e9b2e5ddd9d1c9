package dev.hearth.api.computers;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.hearth.api.Required;
import java.time.Instant;
import java.util.List;

/**
 * A process the agent keeps (the main process, or one started in the background) as the API shows
 * it: {@code exitCode} and {@code endedAt} are null while it runs; {@code stdin} says whether it
 * takes input. Times are read from the agent's RFC 3339 text into instants, so that the API writes
 * them as it writes every other time (the agent trims trailing zeros of the fraction; Java does not).
 */
public record ProcessInfo(int pid, String tag, List<String> command, @Required State state, Integer exitCode,
                          Instant startedAt, Instant endedAt, boolean stdin, boolean pty) {

    /** Whether it still runs. */
    public enum State {
        RUNNING, EXITED;

        @JsonValue
        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
