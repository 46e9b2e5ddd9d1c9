package dev.hearth.server.computers;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.hearth.server.operations.Operation;
import dev.hearth.server.sandbox.Slot;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A computer as stored. {@code generation} counts restores from checkpoints; {@code incarnation}
 * counts sandboxes (every start after sleep gets a new runsc id), so it is not shown to users.
 */
public record Computer(String id, String workspace, String name, String state, String pending, String image,
                       String imageDigest, Map<String, EnvValue> env, List<Port> ports, double cpus, int memoryMb,
                       boolean protectedFlag, Integer autoSleepSeconds, int generation, int incarnation, Slot slot,
                       String parent, String fromCheckpoint, Operation.Error error, Instant createdAt,
                       Instant updatedAt, Instant lastStartedAt, Instant lastActiveAt, Instant deletedAt) {
    public static final String CREATING = "creating";
    public static final String READY = "ready";
    public static final String SLEEPING = "sleeping";
    public static final String FAILED = "failed";
    // The pending values: a move to sleep, or a restore from a checkpoint, is under way.
    public static final String PENDING_SLEEP = "sleeping";
    public static final String RESTORING = "restoring";

    /**
     * A published port: the target port inside the computer, the published one on the router; a
     * private port wants a token with a role in the workspace.
     */
    public record Port(int target, int published, String protocol,
                       @JsonProperty("private") boolean privateAccess) {
    }

    /** The runsc id of this incarnation: fixed length, since runsc matches ids by prefix. */
    public String sandboxId() {
        return id + "-" + String.format("%04d", incarnation);
    }

    public Computer with(String newState, String digest, int newGeneration, Operation.Error newError, Instant now,
                         Instant startedAt) {
        return new Computer(id, workspace, name, newState, pending, image, digest, env, ports, cpus, memoryMb,
                protectedFlag, autoSleepSeconds, newGeneration, incarnation, slot, parent, fromCheckpoint, newError,
                createdAt, now, startedAt, lastActiveAt, deletedAt);
    }

    public Computer withState(String newState, String newPending, Operation.Error newError, Instant now) {
        return new Computer(id, workspace, name, newState, newPending, image, imageDigest, env, ports, cpus, memoryMb,
                protectedFlag, autoSleepSeconds, generation, incarnation, slot, parent, fromCheckpoint, newError,
                createdAt, now, lastStartedAt, lastActiveAt, deletedAt);
    }

    /** The next sandbox of this computer (after sleep, or a restore), and optionally the next generation. */
    public Computer nextIncarnation(int newGeneration, Instant now) {
        return new Computer(id, workspace, name, state, pending, image, imageDigest, env, ports, cpus, memoryMb,
                protectedFlag, autoSleepSeconds, newGeneration, incarnation + 1, slot, parent, fromCheckpoint, error,
                createdAt, now, lastStartedAt, lastActiveAt, deletedAt);
    }

    public Computer withSettings(String newName, Map<String, EnvValue> newEnv, List<Port> newPorts, boolean protect,
                                 Integer autoSleep, Instant now) {
        return new Computer(id, workspace, newName, state, pending, image, imageDigest, newEnv, newPorts, cpus, memoryMb,
                protect, autoSleep, generation, incarnation, slot, parent, fromCheckpoint, error, createdAt, now,
                lastStartedAt, lastActiveAt, deletedAt);
    }

    public Computer withSlot(Slot newSlot) {
        return new Computer(id, workspace, name, state, pending, image, imageDigest, env, ports, cpus, memoryMb,
                protectedFlag, autoSleepSeconds, generation, incarnation, newSlot, parent, fromCheckpoint, error,
                createdAt, updatedAt, lastStartedAt, lastActiveAt, deletedAt);
    }

    public Computer deleted(Instant now) {
        return new Computer(id, workspace, name, state, null, image, imageDigest, env, ports, cpus, memoryMb, false,
                autoSleepSeconds, generation, incarnation, slot, parent, fromCheckpoint, error, createdAt, now,
                lastStartedAt, lastActiveAt, now);
    }
}
