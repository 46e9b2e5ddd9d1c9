package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** How exec tells bytes in JSON: as UTF-8 text (bytes that are not are replaced), or as base64. */
public enum OutputEncoding {
    UTF_8,
    BASE64;

    static OutputEncoding of(String name) {
        if (name == null || name.equalsIgnoreCase("utf-8")) {
            return UTF_8;
        }
        if (name.equals("base64")) {
            return BASE64;
        }
        throw ApiException.invalidField("encoding", "\"utf-8\" (the default) or \"base64\"");
    }

    public String text(byte[] bytes) {
        return this == BASE64 ? Base64.getEncoder().encodeToString(bytes) : new String(bytes, StandardCharsets.UTF_8);
    }

    byte[] bytes(String field, String text) {
        if (text == null) {
            return new byte[0];
        }
        if (this == UTF_8) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField(field, "must be base64 (encoding is base64)");
        }
    }
}
