package dev.hearth.server.checkpoints;

import dev.hearth.api.ApiException;
import dev.hearth.server.operations.Operation;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.regex.Pattern;

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
    public static final String DATABASE = "database";
    // A checkpoint is taken of a paused sandbox without asking its programs to flush anything.
    public static final String CRASH = "crash";
    // A database's checkpoint is a clean copy of a stopped cluster or an online base backup: both
    // start without losing a committed transaction.
    public static final String CONSISTENT = "consistent";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final DateTimeFormatter DEFAULT_NAME =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);

    /** The name asked for, checked, or one made from the time. */
    public static String name(String requested, Instant now) {
        String name = requested == null ? DEFAULT_NAME.format(now) : requested;
        if (!NAME.matcher(name).matches()) {
            throw ApiException.invalidField("name",
                    "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        return name;
    }

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
