package dev.hearth.server.agent;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;

/**
 * A process the agent keeps (the main process, or one started in the background) as the API shows
 * it: {@code exitCode} and {@code endedAt} are null while it runs; {@code stdin} says whether it
 * takes input; times are RFC 3339, UTC.
 */
public record ProcessInfo(int pid, String tag, List<String> command, State state, Integer exitCode,
                          String startedAt, String endedAt, boolean stdin) {

    /** Whether it still runs. */
    public enum State {
        RUNNING, EXITED;

        @JsonValue
        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
