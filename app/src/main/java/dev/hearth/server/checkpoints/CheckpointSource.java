package dev.hearth.server.checkpoints;

import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.checkpoints.CreateCheckpoint;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;

/**
 * The checkpoints of one kind of thing (computers, databases), each found by its owner's id or
 * name ({@code sourceRef}) and its own ({@code ref}): what {@link CheckpointRoutes} serves.
 */
public interface CheckpointSource {
    Accepted create(Workspace workspace, String sourceRef, CreateCheckpoint request);

    Page<Checkpoint> list(Workspace workspace, String sourceRef, PageRequest page);

    Checkpoint get(Workspace workspace, String sourceRef, String ref);

    Accepted delete(Workspace workspace, String sourceRef, String ref);
}
