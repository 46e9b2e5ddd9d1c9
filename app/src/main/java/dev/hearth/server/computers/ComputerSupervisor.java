package dev.hearth.server.computers;

import dev.hearth.server.process.Rounds;
import dev.hearth.server.sandbox.SandboxRuntime;
import dev.hearth.server.sandbox.SandboxStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches ready computers once a second: one whose main process died (its sandbox stopped or
 * vanished) is started again, after 1 s, 2 s, 4 s ... up to a minute while it keeps dying; one idle
 * for its {@code auto_sleep_seconds} is put to sleep; a warm sleeper whose time is up (see
 * {@link SleepDepth}) goes cold. Also writes {@code last_active_at}.
 */
final class ComputerSupervisor {
    private static final Logger LOG = LoggerFactory.getLogger(ComputerSupervisor.class);
    static final Duration EVERY = Duration.ofSeconds(1);
    static final Duration MAX_BACKOFF = Duration.ofMinutes(1);

    /** Restart bookkeeping of one computer: how often, and not before when. */
    private record Restarts(int count, Instant notBefore, Instant lastAt) {
    }

    private final Lifecycle lifecycle;
    private final Sleeps sleeps;
    private final SleepDepth depth;
    private final ComputerRecords records;
    private final SandboxRuntime runtime;
    private final Activity activity;
    private final AgentHealth health;
    private final IdleFreezes freezes;
    private final PacketWatch packets;
    private final Map<String, Restarts> restarts = new ConcurrentHashMap<>();
    private final Set<String> fallingAsleep = ConcurrentHashMap.newKeySet();
    private final Set<String> goingCold = ConcurrentHashMap.newKeySet();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    ComputerSupervisor(Lifecycle lifecycle, Sleeps sleeps, SleepDepth depth, ComputerRecords records,
                       SandboxRuntime runtime, Activity activity, AgentHealth health, IdleFreezes freezes,
                       PacketWatch packets) {
        this.freezes = freezes;
        this.packets = packets;
        this.lifecycle = lifecycle;
        this.sleeps = sleeps;
        this.depth = depth;
        this.records = records;
        this.runtime = runtime;
        this.activity = activity;
        this.health = health;
    }

    void start() {
        threads.add(Rounds.every("computer-supervisor", EVERY, LOG, "watching computers failed", this::pass));
        threads.add(packets.start());
        threads.add(Rounds.every("computer-activity", Duration.ofSeconds(1), LOG, "watching computers failed",
                () -> activity.flush((id, at) -> records.jdbi().useTransaction(h -> records.store().touch(h, id, at)))));
        threads.add(Rounds.every("agent-health", AgentHealth.EVERY, LOG, "asking agents failed",
                () -> health.probe(records.live().stream().filter(c -> c.phase() == Phase.AWAKE).toList(),
                        runtime, records.now())));
    }

    /** Stops watching; the computers keep running, and the next start adopts them. */
    void stop() {
        threads.forEach(Thread::interrupt);
        for (var t : threads) {
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // The store first, then runsc: a computer made in between is not in the snapshot, rather than
    // listed without its sandbox. A sandbox replaced in between (a wake, a restore) still looks gone;
    // Lifecycle.restartAfterExit asks runsc again, under the computer's gate, before it restarts.
    private void pass() {
        var live = records.live();
        var states = runtime.sandboxes();
        Instant now = records.now();
        for (var c : live) {
            if (c.phase() == Phase.AWAKE && !fallingAsleep.contains(c.id())) {
                check(c, states.get(c.sandboxId()), now);
                sleepIfIdle(c, now);
            }
        }
        freezes.pass(live, fallingAsleep, now);
        depth.due(live, now).forEach(this::goCold);
    }

    private void goCold(Computer c) {
        if (!goingCold.add(c.id())) {
            return;
        }
        Thread.ofVirtual().name("cold-sleep-" + c.id()).start(() -> {
            try {
                sleeps.deepen(c.id());
            } catch (RuntimeException e) {
                LOG.warn("computer {} could not go cold", c.id(), e);
            } finally {
                goingCold.remove(c.id());
            }
        });
    }

    private void check(Computer c, SandboxStatus status, Instant now) {
        var history = restarts.get(c.id());
        if (status != null && status.alive()) {
            if (history != null && history.lastAt().plus(MAX_BACKOFF).isBefore(now)) {
                restarts.remove(c.id());
            }
            return;
        }
        lifecycle.sandboxDown(c);
        if (history != null && now.isBefore(history.notBefore())) {
            return;
        }
        int count = history == null ? 1 : history.count() + 1;
        Duration backoff = Duration.ofSeconds(1L << Math.min(6, count - 1));
        if (lifecycle.restartAfterExit(c.id(), count)) {
            restarts.put(c.id(), new Restarts(count, now.plus(backoff.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff),
                    now));
        }
    }

    /** Idle: no exec or router request running, and none begun or ended (nor a wake) for {@code auto_sleep_seconds}. */
    private void sleepIfIdle(Computer c, Instant now) {
        Integer delay = c.settings().autoSleepSeconds();
        if (delay == null || activity.serving(c.id())) {
            return;
        }
        Instant last = Activity.idleSince(activity, c);
        if (last == null || last.plusSeconds(delay).isAfter(now) || !fallingAsleep.add(c.id())) {
            return;
        }
        Thread.ofVirtual().name("auto-sleep-" + c.id()).start(() -> {
            try {
                LOG.info("computer {} ({}) idle for {} s: putting it to sleep", c.name(), c.id(), delay);
                sleeps.sleepNow(c.id());
            } catch (RuntimeException e) {
                LOG.warn("auto-sleep of computer {} failed", c.id(), e);
            } finally {
                fallingAsleep.remove(c.id());
            }
        });
    }
}
