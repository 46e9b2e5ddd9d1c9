package dev.hearth.server.workspaces;

import java.util.function.ToLongBiFunction;
import org.jdbi.v3.core.Handle;

/**
 * One kind of resource a workspace can hold, by its plural noun for messages ("computers") and how
 * to count a workspace's live ones; a workspace holding any cannot be deleted.
 */
public record Contents(String noun, ToLongBiFunction<Handle, String> counter) {
    public long count(Handle h, String workspace) {
        return counter.applyAsLong(h, workspace);
    }
}
