package dev.hearth.cli;

import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** How a computer's main process starts, as options; the command itself is given after {@code --}. */
public final class LaunchOptions {
    @Option(names = "--entrypoint", paramLabel = "PATH",
            description = "run this instead of the image's entrypoint (and drop the image's cmd unless a command follows --)")
    String entrypoint;

    @Option(names = "--restart", paramLabel = "always|on-failure|never",
            description = "what the end of the main process does (default on-failure: the computer stays up after exit 0)")
    String restart;

    /** Puts what was given into {@code body}; {@code command} is what followed {@code --}. */
    void into(Map<String, Object> body, List<String> command) {
        if (entrypoint != null) {
            body.put("entrypoint", List.of(entrypoint));
        }
        if (command != null && !command.isEmpty()) {
            body.put("command", command);
        }
        if (restart != null) {
            body.put("restart", restart);
        }
    }
}
