package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.Patch;
import dev.hearth.api.computers.Restart;
import java.util.List;

/** The checks of {@code entrypoint}, {@code command} and {@code restart} as create and PATCH give them. */
final class LaunchInput {
    private static final int MAX_ARGS = 256;
    private static final int MAX_BYTES = 128 * 1024;

    private LaunchInput() {
    }

    /** Absent keeps {@code current}'s; null is the image's (for {@code restart}: the default). */
    static Launch parse(Patch<List<String>> entrypoint, Patch<List<String>> command, Patch<Restart> restart,
                        Launch current) {
        return new Launch(entrypoint.apply(current.entrypoint(), null, argv -> argv("entrypoint", argv)),
                command.apply(current.command(), null, argv -> argv("command", argv)),
                restart.apply(current.restart(), Launch.IMAGE.restart(), given -> given));
    }

    private static List<String> argv(String field, List<String> argv) {
        if (argv.size() > MAX_ARGS) {
            throw ApiException.invalidField(field, "an array of at most " + MAX_ARGS + " strings, or null for the image's");
        }
        int bytes = 0;
        for (String arg : argv) {
            if (arg == null || arg.indexOf('\0') >= 0) {
                throw ApiException.invalidField(field, "every argument is a string without NUL characters");
            }
            bytes += arg.length();
        }
        if (bytes > MAX_BYTES) {
            throw ApiException.invalidField(field, "at most " + MAX_BYTES + " characters in all");
        }
        return List.copyOf(argv);
    }
}
