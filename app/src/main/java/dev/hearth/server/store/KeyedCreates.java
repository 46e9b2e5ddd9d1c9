package dev.hearth.server.store;

import java.util.function.Supplier;
import org.jdbi.v3.core.Handle;

/**
 * Notes which resource a create made under an {@code Idempotency-Key}, in the transaction that
 * inserts it: a server killed after that commit and before its answer leaves the note, so the
 * client's retry under the same key is answered with what the first attempt made. Stores call
 * {@link #made} where they insert what a create makes; the HTTP layer binds the note around the
 * request that holds the key.
 */
public final class KeyedCreates {
    /** Writes the note beside the key's record, in the handle's transaction. */
    @FunctionalInterface
    public interface Note {
        void made(Handle h, String resourceId);
    }

    private static final ScopedValue<Note> NOTE = ScopedValue.newInstance();

    private KeyedCreates() {
    }

    /** Runs {@code work} with inserts it makes noted by {@code note}. */
    public static <T> T noting(Note note, Supplier<T> work) {
        return ScopedValue.where(NOTE, note).call(work::get);
    }

    /** Notes that the request being served made {@code resourceId} (nothing outside a keyed create). */
    public static void made(Handle h, String resourceId) {
        if (NOTE.isBound()) {
            NOTE.get().made(h, resourceId);
        }
    }
}
