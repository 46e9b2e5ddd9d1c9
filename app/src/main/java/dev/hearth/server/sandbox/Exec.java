package dev.hearth.server.sandbox;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** One command to run in a sandbox, and what came of it. */
public final class Exec {
    private Exec() {
    }

    /**
     * A command: argv, extra environment, working directory, stdin bytes, a time limit, and the user it
     * runs as (a name or uid of the image; null: root).
     */
    public record Request(List<String> command, Map<String, String> env, String cwd, byte[] stdin, Duration timeout,
                          String user) {
        public Request(List<String> command, Map<String, String> env, String cwd, byte[] stdin, Duration timeout) {
            this(command, env, cwd, stdin, timeout, null);
        }
    }

    /** Receives output as it arrives, bytes as written; throwing IOException means nobody listens any more. */
    public interface Sink {
        void output(boolean stderr, byte[] bytes) throws IOException;
    }

    /** The outcome: exit code, captured output (capped), and whether the time limit killed it. */
    public record Result(int exitCode, byte[] stdout, byte[] stderr, boolean truncated, boolean timedOut,
                         long durationMillis) {
    }
}
