package dev.hearth.server.computers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import java.util.ArrayList;
import java.util.List;

/** The checks of {@code entrypoint}, {@code command} and {@code restart} as create and PATCH give them. */
final class LaunchInput {
    private static final int MAX_ARGS = 256;
    private static final int MAX_BYTES = 128 * 1024;

    private LaunchInput() {
    }

    /** Absent keeps {@code current}'s; null is the image's (for {@code restart}: the default). */
    static Launch parse(JsonNode entrypoint, JsonNode command, JsonNode restart, Launch current) {
        return new Launch(argv("entrypoint", entrypoint, current.entrypoint()),
                argv("command", command, current.command()), restart(restart, current.restart()));
    }

    private static List<String> argv(String field, JsonNode node, List<String> current) {
        if (node == null) {
            return current;
        }
        if (node.isNull()) {
            return null;
        }
        if (!node.isArray() || node.size() > MAX_ARGS) {
            throw ApiException.invalidField(field, "an array of at most " + MAX_ARGS + " strings, or null for the image's");
        }
        var argv = new ArrayList<String>();
        int bytes = 0;
        for (var arg : node) {
            if (!arg.isTextual() || arg.asText().indexOf('\0') >= 0) {
                throw ApiException.invalidField(field, "every argument is a string without NUL characters");
            }
            bytes += arg.asText().length();
            argv.add(arg.asText());
        }
        if (bytes > MAX_BYTES) {
            throw ApiException.invalidField(field, "at most " + MAX_BYTES + " characters in all");
        }
        return List.copyOf(argv);
    }

    private static Launch.Restart restart(JsonNode node, Launch.Restart current) {
        if (node == null) {
            return current;
        }
        if (node.isNull()) {
            return Launch.IMAGE.restart();
        }
        if (!node.isTextual()) {
            throw ApiException.invalidField("restart", "must be always, on-failure or never");
        }
        return Launch.Restart.of(node.asText());
    }
}
