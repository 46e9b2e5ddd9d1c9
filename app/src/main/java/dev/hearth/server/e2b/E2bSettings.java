package dev.hearth.server.e2b;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The E2B facade's settings: the domain its host names live under (the router's: the API at
 * {@code api.DOMAIN}, sandboxes at {@code PORT-ID.DOMAIN}); that domain as sandboxes' answers name it
 * to the SDK ({@code publicDomain}: with the router's port unless it is 443, since the SDK builds
 * {@code https://PORT-ID.DOMAIN} from it); and templates by name ({@code base} and others an operator
 * names with {@code --e2b-template NAME=IMAGE}). A template that is no name here is an image reference
 * used as it is, or a kept checkpoint's id (a snapshot).
 */
public record E2bSettings(String domain, String publicDomain, Map<String, String> templates) {
    /** The envd version the facade says it is: the highest whose features it implements (see docs/e2b.md). */
    static final String ENVD_VERSION = "0.6.4";
    /** E2B's default lease, in seconds. */
    static final int DEFAULT_TIMEOUT = 300;

    public E2bSettings {
        templates = Map.copyOf(templates);
    }

    /** {@code NAME=IMAGE[,NAME=IMAGE]} as the option gives them; a later name wins. */
    public static Map<String, String> parseTemplates(String text) {
        var templates = new LinkedHashMap<String, String>();
        if (text == null || text.isBlank()) {
            return templates;
        }
        for (String pair : text.split(",")) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || eq == pair.length() - 1) {
                throw new IllegalArgumentException("--e2b-template takes NAME=IMAGE[,NAME=IMAGE]; got " + pair);
            }
            templates.put(pair.substring(0, eq).strip(), pair.substring(eq + 1).strip());
        }
        return templates;
    }
}
