package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A computer's labels: its owner's names and values for it (E2B's metadata), which lists filter by.
 * Names are 1 to 128 characters of letters, digits and {@code . _ - /}; values are strings of up to
 * 512 characters; at most 64 a computer.
 */
final class Labels {
    static final int MAX = 64;
    static final int MAX_VALUE = 512;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._/-]{1,128}");

    private Labels() {
    }

    /** The labels of a create (null: none). */
    static Map<String, String> of(Map<String, String> requested) {
        return checked(requested == null ? Map.of() : requested);
    }

    /** A PATCH over {@code current}: absent keeps them, a name given null removes it, others set it. */
    static Map<String, String> patched(Map<String, String> requested, Map<String, String> current) {
        if (requested == null) {
            return current;
        }
        var labels = new LinkedHashMap<>(current);
        requested.forEach((name, value) -> {
            if (value == null) {
                labels.remove(name);
            } else {
                labels.put(name, value);
            }
        });
        return checked(labels);
    }

    /** {@code ?label=NAME=VALUE} (repeatable): every one must match. */
    static Map<String, String> filter(List<String> given) {
        var wanted = new TreeMap<String, String>();
        for (String pair : given) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw ApiException.invalidField("label", "must be NAME=VALUE, e.g. label=team=web");
            }
            wanted.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return checked(wanted);
    }

    private static Map<String, String> checked(Map<String, String> labels) {
        if (labels.size() > MAX) {
            throw ApiException.invalidField("labels", "at most " + MAX + " labels");
        }
        for (var label : labels.entrySet()) {
            if (!NAME.matcher(label.getKey()).matches()) {
                throw ApiException.invalidField("labels." + label.getKey(),
                        "a name is 1 to 128 letters, digits, '.', '_', '-' or '/'");
            }
            if (label.getValue().length() > MAX_VALUE) {
                throw ApiException.invalidField("labels." + label.getKey(), "a value is at most " + MAX_VALUE
                        + " characters");
            }
        }
        return Map.copyOf(new TreeMap<>(labels));
    }
}
