package dev.hearth.api;

import java.util.Locale;
import java.util.regex.Pattern;

/** Input rules shared by every service; each failure names the field. */
public final class Validate {
    private static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$");
    // Deliberately plain: one @, a dot in the domain, no spaces; the mail server is the final judge.
    private static final Pattern EMAIL = Pattern.compile("^[^@\\s]{1,64}@[^@\\s.]+(\\.[^@\\s.]+)+$");

    private Validate() {
    }

    public static <T> T required(String field, T value) {
        if (value == null) {
            throw ApiException.invalidField(field, "required");
        }
        return value;
    }

    public static String dnsLabel(String field, String value) {
        required(field, value);
        if (!DNS_LABEL.matcher(value).matches()) {
            throw ApiException.invalidField(field, "must be a DNS label: 1 to 63 lowercase letters, digits and "
                    + "hyphens, not starting or ending with a hyphen");
        }
        return value;
    }

    public static String email(String field, String value) {
        required(field, value);
        if (value.length() > 254 || !EMAIL.matcher(value).matches()) {
            throw ApiException.invalidField(field, "must be an email address like name@example.com");
        }
        return value.toLowerCase(Locale.ROOT);
    }

    public static String maxLength(String field, String value, int max) {
        if (value != null && value.length() > max) {
            throw ApiException.invalidField(field, "at most " + max + " characters");
        }
        return value;
    }

    /**
     * Text for people to read (a description): at most {@code max} characters, no control characters but
     * tab and newline, and no half of a surrogate pair (which UTF-8, and so the store, cannot hold).
     */
    public static String text(String field, String value, int max) {
        maxLength(field, value, max);
        if (value == null) {
            return null;
        }
        // codePoints() yields a lone surrogate as itself and a whole pair as one supplementary code point.
        if (value.codePoints().anyMatch(cp -> Character.getType(cp) == Character.SURROGATE
                || Character.isISOControl(cp) && cp != '\t' && cp != '\n')) {
            throw ApiException.invalidField(field, "text without control characters or broken surrogate pairs");
        }
        return value;
    }

    public static int range(String field, Integer value, int min, int max, int absent) {
        if (value == null) {
            return absent;
        }
        if (value < min || value > max) {
            throw ApiException.invalidField(field, "must be from " + min + " to " + max);
        }
        return value;
    }
}
