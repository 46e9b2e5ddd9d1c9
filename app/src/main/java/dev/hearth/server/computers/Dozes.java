package dev.hearth.server.computers;

import dev.hearth.server.agent.AgentStats;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ready computers frozen while idle: the sandbox stopped in its cgroup (no CPU, as a warm sleeper)
 * but the computer still ready to its users, so nothing they see changes. Whatever needs it thaws it
 * first, in the milliseconds a warm wake takes: every change and every exec, file or process call
 * (they pass its {@link Gates gate}), a router request, a new connection from another computer (the
 * firewall sends it to the waker while frozen) and any other packet for it ({@link PacketWatch}).
 * Kept in memory only: a restarted server thaws every ready computer's sandbox ({@link Reconciler}).
 */
final class Dozes {
    private static final Logger LOG = LoggerFactory.getLogger(Dozes.class);

    /**
     * A frozen computer: as it was when frozen, since when, what its agent said just before, and how
     * many packets its veth had passed to it then (-1: it has none here).
     */
    record Doze(Computer computer, Instant since, Optional<AgentStats> stats, long sentPackets) {
    }

    private static final Duration SETTLE = Duration.ofMillis(20);
    private static final Duration SETTLE_AT_MOST = Duration.ofMillis(500);

    private final SandboxAccess access;
    private final Networking networking;
    private final Supplier<Instant> clock;
    private final Map<String, Doze> dozing = new ConcurrentHashMap<>();
    // When each was last thawed: a packet or a connection is not a use (auto-sleep and last_active_at
    // do not count it), yet a computer just thawed for one is not frozen again for a while.
    private final Map<String, Instant> thawed = new ConcurrentHashMap<>();

    Dozes(SandboxAccess access, Networking networking, Supplier<Instant> clock) {
        this.access = access;
        this.networking = networking;
        this.clock = clock;
    }

    /**
     * Freezes a ready computer; the caller holds its gate alone, has checked it is idle and closed
     * its idle agent connections. Their closing handshakes end first (its veth passes nothing for
     * a moment, up to half a second on a busy host): a packet of one counted after the count is
     * taken would thaw the computer at once.
     */
    void doze(Computer c, Instant now, Optional<AgentStats> stats) {
        long sent = PacketWatch.quietly(c.slot().hostVeth(), SETTLE, SETTLE_AT_MOST);
        if (Thread.currentThread().isInterrupted()) {
            return;
        }
        access.get().freeze(c.sandboxId());
        networking.asleep(c, true);
        dozing.put(c.id(), new Doze(c, now, stats, sent));
        LOG.debug("computer {} ({}) is idle: frozen", c.name(), c.id());
    }

    /**
     * Thaws it if it is frozen; answers whether it was. The caller holds its gate, shared or alone:
     * a freeze (which holds it alone) is never under way meanwhile. Callers that share the gate may
     * come together; one thaws while the others wait for it.
     */
    boolean thaw(String computerId) {
        var doze = dozing.get(computerId);
        if (doze == null) {
            return false;
        }
        synchronized (doze) {
            if (dozing.get(computerId) != doze) {
                return true;
            }
            var c = doze.computer();
            // The firewall's mark goes while the sandbox thaws, as in a warm wake (Sleeps).
            var unmarked = Thread.ofVirtual().name("thaw-mark").start(() -> networking.asleep(c, false));
            try {
                access.get().thaw(c.sandboxId());
                Sleeps.join(unmarked);
            } catch (RuntimeException e) {
                Sleeps.join(unmarked);
                networking.asleep(c, true); // still frozen: a new connection must still reach the waker
                throw e;
            }
            thawed.put(computerId, clock.get());
            dozing.remove(computerId);
            LOG.debug("computer {} ({}) thawed", c.name(), c.id());
            return true;
        }
    }

    /** Since when it has been frozen while idle; empty when it is not. */
    Optional<Instant> since(String computerId) {
        return Optional.ofNullable(dozing.get(computerId)).map(Doze::since);
    }

    /** When it was last thawed, if it was. */
    Optional<Instant> thawedAt(String computerId) {
        return Optional.ofNullable(thawed.get(computerId));
    }

    boolean dozing(String computerId) {
        return dozing.containsKey(computerId);
    }

    /** What its agent said just before the freeze: a frozen agent cannot answer, and nothing in it changed since. */
    Optional<AgentStats> stats(String computerId) {
        return Optional.ofNullable(dozing.get(computerId)).flatMap(Doze::stats);
    }

    /** The frozen computers, as they were when frozen. */
    Map<String, Doze> all() {
        return Map.copyOf(dozing);
    }

    /** Forgets those no longer live (deleted, moved): their sandboxes went with them. */
    void retain(Set<String> live) {
        dozing.keySet().retainAll(live);
        thawed.keySet().retainAll(live);
    }
}
