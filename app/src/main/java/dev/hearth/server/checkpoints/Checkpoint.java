package dev.hearth.server.checkpoints;

import dev.hearth.server.operations.Operation;
import java.time.Instant;

/**
 * A checkpoint as stored and as shown: what it was taken of ({@code source_type}, {@code source}),
 * the source's generation and image then, its size on disk, and the checkpoint before it.
 */
public record Checkpoint(String id, String workspace, String sourceType, String source, String name,
                         String consistency, String state, int generation, String imageDigest, long sizeBytes,
                         String parent, Operation.Error error, Instant createdAt, Instant deletedAt) {
    public static final String CREATING = "creating";
    public static final String READY = "ready";
    public static final String FAILED = "failed";
    public static final String DELETING = "deleting";
    public static final String COMPUTER = "computer";
    // A checkpoint is taken of a paused sandbox without asking its programs to flush anything.
    public static final String CRASH = "crash";

    public Checkpoint ready(long size) {
        return new Checkpoint(id, workspace, sourceType, source, name, consistency, READY, generation, imageDigest, size,
                parent, null, createdAt, deletedAt);
    }

    public Checkpoint failed(Operation.Error why) {
        return new Checkpoint(id, workspace, sourceType, source, name, consistency, FAILED, generation, imageDigest, 0,
                parent, why, createdAt, deletedAt);
    }

    public Checkpoint deleting() {
        return new Checkpoint(id, workspace, sourceType, source, name, consistency, DELETING, generation, imageDigest,
                sizeBytes, parent, error, createdAt, deletedAt);
    }

    public Checkpoint deleted(Instant now) {
        return new Checkpoint(id, workspace, sourceType, source, name, consistency, DELETING, generation, imageDigest,
                sizeBytes, parent, error, createdAt, now);
    }
}
