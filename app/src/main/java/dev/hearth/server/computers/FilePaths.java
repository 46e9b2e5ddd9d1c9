package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.Validate;
import java.util.Map;
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

    /**
     * A file's metadata, sent as {@code X-Metadata-KEY: VALUE} headers (E2B's envd's form): keys are
     * HTTP token characters (lower-cased; at most 128), values printable ASCII of at most 4096.
     */
    static Map<String, String> metadata(Map<String, String> given) {
        if (given.size() > 64) {
            throw ApiException.invalidField("metadata", "at most 64 X-Metadata-* headers");
        }
        for (var entry : given.entrySet()) {
            if (!METADATA_KEY.matcher(entry.getKey()).matches()) {
                throw ApiException.invalidField("X-Metadata-" + entry.getKey(), "a key is 1 to 128 letters, digits "
                        + "and !#$%&'*+-.^_`|~");
            }
            if (!METADATA_VALUE.matcher(entry.getValue()).matches()) {
                throw ApiException.invalidField("X-Metadata-" + entry.getKey(), "a value is at most 4096 printable "
                        + "ASCII characters");
            }
        }
        return Map.copyOf(given);
    }

    private static final Pattern METADATA_KEY = Pattern.compile("[a-z0-9!#$%&'*+.^_`|~-]{1,128}");
    private static final Pattern METADATA_VALUE = Pattern.compile("[\\x20-\\x7e]{0,4096}");
}
