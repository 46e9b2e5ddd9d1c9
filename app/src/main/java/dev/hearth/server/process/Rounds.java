package dev.hearth.server.process;

import java.time.Duration;
import org.slf4j.Logger;

/** Work done in rounds on a virtual thread of its own until the thread is interrupted. */
public final class Rounds {
    private Rounds() {
    }

    /**
     * Starts a thread named {@code name} that waits {@code period}, then runs {@code round}, again
     * and again. A round that fails is logged on {@code log} as {@code failure} and the next goes on.
     */
    public static Thread every(String name, Duration period, Logger log, String failure, Runnable round) {
        return Thread.ofVirtual().name(name).start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(period);
                    round.run();
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    log.warn(failure + "; will retry", e);
                }
            }
        });
    }
}
