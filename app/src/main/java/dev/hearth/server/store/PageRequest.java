package dev.hearth.server.store;

import java.util.Optional;

/** One page to read: at most {@code limit} rows after {@code after} (an id), in id order. */
public record PageRequest(int limit, Optional<String> after) {
    public static final int DEFAULT_LIMIT = 50;
    public static final int MAX_LIMIT = 100;
}
