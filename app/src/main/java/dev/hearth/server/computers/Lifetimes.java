package dev.hearth.server.computers;

import dev.hearth.api.computers.OnExpire;
import dev.hearth.server.process.Rounds;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends, every second, the computers of this node whose lifetime is up: deletes them, or puts them to
 * sleep (from then on they live until deleted). The lifetime is in the store, so it holds across
 * restarts of hearth serve: one that ended while the server was down ends at its next start.
 */
final class Lifetimes {
    private static final Logger LOG = LoggerFactory.getLogger(Lifetimes.class);
    private final ComputerParts parts;
    private final UnaryOperator<Computer> delete;
    private final Consumer<Computer> sleep;

    Lifetimes(ComputerParts parts, UnaryOperator<Computer> delete, Consumer<Computer> sleep) {
        this.parts = parts;
        this.delete = delete;
        this.sleep = sleep;
    }

    Thread start() {
        return Rounds.every("computer-lifetimes", Duration.ofSeconds(1), LOG, "ending computers whose lifetime is up "
                + "failed", this::endDue);
    }

    /** A lifetime changed meanwhile (a PATCH, a connect) is read again before anything ends. */
    private void endDue() {
        var records = parts.records();
        for (var c : records.jdbi().withHandle(h -> records.store().expired(h, records.now()))) {
            var latest = records.current(c.id());
            var lifetime = latest.settings().lifetime();
            if (latest.deleted() || !lifetime.expired(records.now())) {
                continue;
            }
            LOG.info("computer {} ({}): its lifetime ended at {}; {}", c.name(), c.id(), lifetime.expiresAt(),
                    lifetime.onExpire() == OnExpire.DELETE ? "deleting it" : "putting it to sleep");
            if (lifetime.onExpire() == OnExpire.DELETE) {
                delete.apply(latest);
                continue;
            }
            var endless = records.update(latest.withSettings(latest.name(), latest.settings().endless(), records.now()));
            if (endless.allowsNow(Move.SLEEP) && parts.access().runtime().isPresent()) {
                sleep.accept(endless);
            }
        }
    }
}
