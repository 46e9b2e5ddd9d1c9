package dev.hearth.server.store;

import dev.hearth.api.ApiException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * Opaque, versioned page tokens. A cursor names the last id of the previous page; pages are keyset
 * based on time-ordered ids, so rows inserted meanwhile neither shift nor repeat earlier pages.
 */
public final class Cursor {
    private static final String PREFIX = "v1:";

    private Cursor() {
    }

    public static String encode(String lastId) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString((PREFIX + lastId).getBytes(StandardCharsets.UTF_8));
    }

    /** The id after which the next page starts, or empty for the first page. */
    public static Optional<String> decode(String cursor) {
        if (cursor == null) {
            return Optional.empty();
        }
        try {
            String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            if (text.startsWith(PREFIX) && Ids.looksLikeId(text.substring(PREFIX.length()))) {
                return Optional.of(text.substring(PREFIX.length()));
            }
        } catch (IllegalArgumentException notBase64) {
            // falls through to the same answer as any other bad cursor
        }
        throw ApiException.invalidField("cursor", "not a cursor this server issued; pass next_cursor as returned");
    }
}
