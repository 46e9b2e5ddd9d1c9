package dev.hearth.server.computers;

import dev.hearth.server.operations.Operation;
import dev.hearth.server.sandbox.Slot;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** A computer as stored. */
public record Computer(String id, String workspace, String name, String state, String image, String imageDigest,
                       Map<String, EnvValue> env, List<Port> ports, double cpus, int memoryMb, boolean protectedFlag,
                       int generation, Slot slot, String parent, String fromCheckpoint, Operation.Error error,
                       Instant createdAt, Instant updatedAt, Instant lastStartedAt, Instant lastActiveAt,
                       Instant deletedAt) {
    public static final String CREATING = "creating";
    public static final String READY = "ready";
    public static final String FAILED = "failed";

    /** A published port: the target port inside the computer, the published one on the router. */
    public record Port(int target, int published, String protocol) {
    }

    /** The runsc id of this generation: fixed length, since runsc matches ids by prefix. */
    public String sandboxId() {
        return id + "-" + String.format("%04d", generation);
    }

    public Computer with(String newState, String digest, int newGeneration, Operation.Error newError, Instant now,
                         Instant startedAt) {
        return new Computer(id, workspace, name, newState, image, digest, env, ports, cpus, memoryMb, protectedFlag,
                newGeneration, slot, parent, fromCheckpoint, newError, createdAt, now, startedAt, lastActiveAt, deletedAt);
    }
}
