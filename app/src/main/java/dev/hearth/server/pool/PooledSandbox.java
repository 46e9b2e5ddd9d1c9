package dev.hearth.server.pool;

import dev.hearth.server.sandbox.Slot;
import java.time.Instant;

/**
 * One sandbox of the warm pool: {@code id} is the computer id it will have when claimed (so its
 * directory, runsc id and agent secret are already that computer's), on its own network slot.
 */
public record PooledSandbox(String id, String image, String imageDigest, Slot slot, PoolState state,
                            Instant createdAt) {
    public PooledSandbox ready(String digest) {
        return new PooledSandbox(id, image, digest, slot, PoolState.READY, createdAt);
    }
}
