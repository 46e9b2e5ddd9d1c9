package dev.hearth.support;

import dev.hearth.server.pool.PoolReport;
import dev.hearth.server.pool.PoolState;
import dev.hearth.server.pool.PooledSandbox;
import java.util.List;
import java.util.function.Supplier;

/** Waiting for a warm pool to be filled, wherever the test reads it from (a server, a rig). */
public final class TestPool {
    private TestPool() {
    }

    /** The ready sandboxes of {@code image}, once there are {@code size} of them (within 30 s). */
    public static List<PooledSandbox> awaitReady(Supplier<PoolReport> pool, String image, int size)
            throws InterruptedException {
        for (int i = 0; i < 1500; i++) {
            var ready = pool.get().sandboxes().stream()
                    .filter(p -> p.state() == PoolState.READY && p.image().equals(image)).toList();
            if (ready.size() == size) {
                return ready;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the pool of " + image + " did not fill to " + size + ": " + pool.get());
    }
}
