package dev.hearth.server.store;

import java.util.List;
import java.util.function.Function;

/** A page of rows and where the next one starts. */
public record Page<T>(List<T> items, String nextCursor, boolean hasMore) {

    /** Builds a page from up to limit + 1 rows read in order: the extra row only says there is more. */
    public static <T> Page<T> of(List<T> rows, int limit, Function<T, String> id) {
        boolean more = rows.size() > limit;
        List<T> items = more ? List.copyOf(rows.subList(0, limit)) : List.copyOf(rows);
        String next = more ? Cursor.encode(id.apply(items.getLast())) : null;
        return new Page<>(items, next, more);
    }

    public <R> Page<R> map(Function<T, R> f) {
        return new Page<>(items.stream().map(f).toList(), nextCursor, hasMore);
    }
}
