package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.Validate;
import java.util.regex.Pattern;

/** Paths and modes of the files API, checked before any computer is woken for them. */
final class FilePaths {
    private static final int MAX_PATH = 4096;
    private static final Pattern MODE = Pattern.compile("^[0-7]{1,4}$");

    private FilePaths() {
    }

    /** An absolute path with no NUL byte and no . or .. part (the agent checks again). */
    static String check(String field, String path) {
        Validate.required(field, path);
        if (path.length() > MAX_PATH) {
            throw ApiException.invalidField(field, "at most " + MAX_PATH + " characters");
        }
        if (path.indexOf('\0') >= 0) {
            throw ApiException.invalidField(field, "must not contain NUL bytes");
        }
        if (!path.startsWith("/")) {
            throw ApiException.invalidField(field, "must be an absolute path (start with /)");
        }
        for (String part : path.split("/")) {
            if (part.equals(".") || part.equals("..")) {
                throw ApiException.invalidField(field, "must not contain . or .. parts");
            }
        }
        return path;
    }

    /** Permission bits in octal ("644", "0755"); null keeps the default (0644). */
    static String mode(String mode) {
        if (mode != null && !MODE.matcher(mode).matches()) {
            throw ApiException.invalidField("mode", "permission bits in octal, such as 644 or 0755");
        }
        return mode;
    }
}
