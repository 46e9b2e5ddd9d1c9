package dev.hearth.server.process;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs host commands (ip, runsc, skopeo, umoci) to completion, with a time limit. */
public final class Commands {
    /** What a finished command said. */
    public record Result(int exitCode, String stdout, String stderr) {
        public boolean ok() {
            return exitCode == 0;
        }
    }

    /** A host command that failed; the message carries what it printed. */
    public static final class Failure extends RuntimeException {
        public Failure(String message) {
            super(message);
        }
    }

    private Commands() {
    }

    public static Result run(List<String> command, Duration limit) {
        return run(command, null, limit);
    }

    /** Runs with {@code input} on stdin (null: /dev/null). */
    public static Result run(List<String> command, String input, Duration limit) {
        Subreaper.commandStarted();
        try {
            var builder = new ProcessBuilder(command);
            if (input == null) {
                builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            }
            var process = builder.start();
            if (input != null) {
                try (var stdin = process.getOutputStream()) {
                    stdin.write(input.getBytes(StandardCharsets.UTF_8));
                }
            }
            var stdout = new StringBuilder();
            var stderr = new StringBuilder();
            // Both read aside, so that the limit holds for a command that blocks with its output open.
            var out = drain(process.getInputStream(), stdout);
            var err = drain(process.getErrorStream(), stderr);
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new Failure(String.join(" ", command) + " did not finish in " + limit);
            }
            out.join();
            err.join();
            return new Result(process.exitValue(), stdout.toString(), stderr.toString());
        } catch (IOException e) {
            throw new Failure("cannot run " + command.getFirst() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure("interrupted while running " + command.getFirst());
        } finally {
            Subreaper.commandEnded();
        }
    }

    private static Thread drain(InputStream stream, StringBuilder into) {
        return Thread.ofVirtual().start(() -> {
            try {
                into.append(new String(stream.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                // the process is gone; what it printed so far is kept
            }
        });
    }

    /** Runs and requires exit code 0. */
    public static String check(List<String> command, Duration limit) {
        return check(command, null, limit);
    }

    /** Runs with {@code input} on stdin and requires exit code 0. */
    public static String check(List<String> command, String input, Duration limit) {
        var result = run(command, input, limit);
        if (!result.ok()) {
            throw new Failure(String.join(" ", command) + " failed (exit " + result.exitCode() + "): "
                    + result.stderr().strip());
        }
        return result.stdout();
    }
}
