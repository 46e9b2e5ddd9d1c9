package dev.hearth.server.computers;

import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the agents tell of main processes that ended: noted on the computer (its {@code main_exit}
 * while that sandbox runs) and in the log.
 */
final class MainExits {
    private static final Logger LOG = LoggerFactory.getLogger(MainExits.class);

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final ComputerRecords records;

    MainExits(ComputerRecords records) {
        this.records = records;
    }

    /**
     * Whether a watch on {@code c}'s sandbox is worth keeping: the computer runs it, or is about to (a
     * start or a wake saves the new sandbox after its agent answered).
     */
    boolean current(Computer c) {
        var now = records.current(c.id());
        return !now.deleted() && now.instance().incarnation() <= c.instance().incarnation();
    }

    /** Notes the end once the store knows the sandbox (at most {@code PATIENCE} later); a later one drops it. */
    void ended(Computer c, int exitCode, Instant at) throws InterruptedException {
        int incarnation = c.instance().incarnation();
        for (long deadline = System.nanoTime() + PATIENCE.toNanos(); System.nanoTime() < deadline; Thread.sleep(100)) {
            var now = records.current(c.id());
            if (now.deleted() || now.instance().incarnation() > incarnation) {
                return;
            }
            if (now.instance().incarnation() == incarnation) {
                records.noteMainExit(c.id(), new Computer.MainExit(exitCode, at, incarnation));
                LOG.info("computer {} ({}): its main process exited with {}", c.name(), c.id(), exitCode);
                return;
            }
        }
    }
}
