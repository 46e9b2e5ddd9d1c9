package dev.hearth.server.images;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Where a workspace's pull of an image stands: pulling, then ready (with a digest) or failed (with the reason). */
public enum ImageState {
    PULLING, READY, FAILED;

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return wire();
    }

    public static ImageState of(String wire) {
        return valueOf(wire.toUpperCase(Locale.ROOT));
    }
}
