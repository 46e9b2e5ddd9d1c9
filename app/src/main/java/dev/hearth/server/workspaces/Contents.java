package dev.hearth.server.workspaces;

import java.util.function.ToLongBiFunction;
import org.jdbi.v3.core.Handle;

/**
 * One kind of resource a workspace can hold, by its plural noun for messages ("computers") and how
 * to count a workspace's live ones; a workspace holding any cannot be deleted. {@code names} checks a
 * new name of the workspace against what it holds (computers' URLs carry it).
 */
public record Contents(String noun, ToLongBiFunction<Handle, String> counter, NameRule names) {
    /** Throws an ApiException if the workspace's live resources of this kind cannot carry {@code newName}. */
    @FunctionalInterface
    public interface NameRule {
        void check(Handle h, String workspace, String newName);
    }

    public Contents(String noun, ToLongBiFunction<Handle, String> counter) {
        this(noun, counter, (h, workspace, newName) -> { });
    }

    public long count(Handle h, String workspace) {
        return counter.applyAsLong(h, workspace);
    }
}
