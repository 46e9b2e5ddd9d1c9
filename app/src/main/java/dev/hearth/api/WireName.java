package dev.hearth.api;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * An enum whose form on the wire and in the store is its lowercase name ({@code ready},
 * {@code sleeping}): every state and closed set of values the API shows.
 */
public interface WireName {
    String name();

    @JsonValue
    default String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The constant a wire or stored form names; IllegalArgumentException for one it does not. */
    static <E extends Enum<E> & WireName> E parse(Class<E> type, String wire) {
        return Enum.valueOf(type, wire.toUpperCase(Locale.ROOT));
    }
}
