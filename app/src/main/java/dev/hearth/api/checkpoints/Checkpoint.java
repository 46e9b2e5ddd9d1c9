package dev.hearth.api.checkpoints;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.hearth.api.Required;
import dev.hearth.api.Validate;
import dev.hearth.api.operations.OperationError;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * A checkpoint as stored and as shown: what it was taken of ({@code source_type}, {@code source}),
 * the source's generation and image then, its size on disk, and the checkpoint before it. A
 * {@code kept} one (a template) outlives its source: deleting the source leaves it.
 */
@JsonPropertyOrder({"id", "workspace", "source_type", "source", "name", "consistency", "state", "generation",
        "image_digest", "size_bytes", "parent", "kept", "error", "created_at", "deleted_at"})
public record Checkpoint(@Required String id, @Required String workspace, @Required SourceType sourceType, @Required String source, @Required String name,
                         @Required CheckpointState state, int generation, String imageDigest, long sizeBytes,
                         String parent, OperationError error, @Required Instant createdAt, Instant deletedAt, boolean kept) {

    private static final DateTimeFormatter DEFAULT_NAME =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);

    /** The name asked for, checked, or one made from the time. */
    public static String name(String requested, Instant now) {
        return requested == null ? DEFAULT_NAME.format(now) : Validate.dnsLabel("name", requested);
    }

    /** How consistent the checkpoint is, from what it was taken of. */
    @JsonProperty("consistency")
    public SourceType.Consistency consistency() {
        return sourceType.consistency();
    }

    public boolean is(CheckpointState s) {
        return state == s;
    }

    public Checkpoint ready(long size) {
        return new Checkpoint(id, workspace, sourceType, source, name, state.moveTo(CheckpointState.READY), generation,
                imageDigest, size, parent, null, createdAt, deletedAt, kept);
    }

    public Checkpoint failed(OperationError why) {
        return new Checkpoint(id, workspace, sourceType, source, name, state.moveTo(CheckpointState.FAILED), generation,
                imageDigest, 0, parent, why, createdAt, deletedAt, kept);
    }

    public Checkpoint deleting() {
        return new Checkpoint(id, workspace, sourceType, source, name, state.moveTo(CheckpointState.DELETING),
                generation, imageDigest, sizeBytes, parent, error, createdAt, deletedAt, kept);
    }

    /** Gone from view: deleted by request, or with its source (in whatever state it was). */
    public Checkpoint deleted(Instant now) {
        return new Checkpoint(id, workspace, sourceType, source, name, CheckpointState.DELETING, generation,
                imageDigest, sizeBytes, parent, error, createdAt, now, kept);
    }
}
