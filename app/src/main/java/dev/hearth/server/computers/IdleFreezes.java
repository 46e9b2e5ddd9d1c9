package dev.hearth.server.computers;

import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.ProcessInfo;
import dev.hearth.server.agent.AgentEndpoint;
import dev.hearth.server.agent.AgentException;
import dev.hearth.server.sandbox.SandboxUsage;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which ready computers are idle enough to freeze ({@link Dozes}), asked once a second by the
 * supervisor. Idle for {@code after}: no exec, file, process or router request began or ended, the
 * sandbox used under a tenth of a CPU in every second of it, and no process started through the API
 * (a background command, a terminal) still runs, since its user expects it to go on. A computer whose
 * own timers must run (cron, a heartbeat) says {@code freeze_when_idle: false}.
 */
final class IdleFreezes {
    private static final Logger LOG = LoggerFactory.getLogger(IdleFreezes.class);
    // An idle sandbox costs 3-5 % of a CPU on systrap (docs/benchmarks.md); a working one far more.
    static final double QUIET_CPUS = 0.1;

    /** The sandbox's CPU seconds when last read, and since when it has been quiet. */
    private record Cpu(double seconds, Instant at, Instant quietSince) {
    }

    private final Duration after;
    private final Dozes dozes;
    private final Gates gates;
    private final Activity activity;
    private final SandboxAccess access;
    private final Agents agents;
    private final ComputerRecords records;
    private final AgentHealth health;
    private final Map<String, Cpu> cpu = new ConcurrentHashMap<>();
    private final Map<String, Instant> runsProcesses = new ConcurrentHashMap<>();
    private final Set<String> freezing = ConcurrentHashMap.newKeySet();

    IdleFreezes(Duration after, ComputerParts parts) {
        this.after = after;
        this.dozes = parts.dozes();
        this.gates = parts.gates();
        this.activity = parts.activity();
        this.access = parts.access();
        this.agents = parts.agents();
        this.records = parts.records();
        this.health = parts.health();
    }

    /**
     * One look at the live computers: those awake and idle long enough (and not {@code fallingAsleep})
     * are frozen, each on a thread of its own.
     */
    void pass(Collection<Computer> live, Set<String> fallingAsleep, Instant now) {
        Set<String> ids = live.stream().map(Computer::id).collect(Collectors.toSet());
        cpu.keySet().retainAll(ids);
        runsProcesses.keySet().retainAll(ids);
        dozes.retain(ids);
        if (after.isZero()) {
            return;
        }
        for (var c : live) {
            if (c.phase() == Phase.AWAKE && !fallingAsleep.contains(c.id()) && !dozes.dozing(c.id())
                    && quiet(c, now) && idle(c, now) && freezing.add(c.id())) {
                Thread.ofVirtual().name("idle-freeze-" + c.id()).start(() -> {
                    try {
                        freeze(c);
                    } catch (RuntimeException e) {
                        LOG.warn("computer {} ({}) could not be frozen while idle", c.name(), c.id(), e);
                    } finally {
                        freezing.remove(c.id());
                    }
                });
            }
        }
    }

    /** Whether its sandbox used under a tenth of a CPU in every second of the last {@code after}. */
    private boolean quiet(Computer c, Instant now) {
        Optional<Double> seconds = access.runtime().flatMap(r -> r.usage(c.sandboxId())).map(SandboxUsage::cpuSeconds);
        if (seconds.isEmpty()) {
            return false;
        }
        var last = cpu.get(c.id());
        double elapsed = last == null ? 0 : Duration.between(last.at(), now).toNanos() / 1e9;
        boolean busy = last == null || elapsed <= 0 || (seconds.get() - last.seconds()) / elapsed > QUIET_CPUS;
        var quietSince = busy ? now : last.quietSince();
        cpu.put(c.id(), new Cpu(seconds.get(), now, quietSince));
        return !quietSince.plus(after).isAfter(now);
    }

    private boolean idle(Computer c, Instant now) {
        if (!c.settings().freezeWhenIdle() || activity.serving(c.id()) || agents.busy(c.sandboxId())
                || health.unresponsiveSince(c.id()).isPresent()) {
            return false;
        }
        var checked = runsProcesses.get(c.id());
        return idleFor(c, now) && (checked == null || !checked.plus(after).isAfter(now));
    }

    /** Not used, nor thawed (for a packet, a connection), for {@code after}. */
    private boolean idleFor(Computer c, Instant now) {
        Instant since = Activity.idleSince(activity, c);
        var thawed = dozes.thawedAt(c.id());
        if (since == null || thawed.isPresent() && thawed.get().isAfter(since)) {
            since = thawed.orElse(null);
        }
        return since != null && !since.plus(after).isAfter(now);
    }

    /**
     * Asks its agent first (no process of the API runs; its numbers for while it is frozen), outside
     * the gate, since an agent may be slow to answer; then, under the gate once no exec holds it,
     * freezes it if it is still ready and idle.
     */
    private void freeze(Computer seen) {
        String computerId = seen.id();
        if (runsProcesses(seen)) {
            runsProcesses.put(computerId, records.now());
            return;
        }
        var stats = agents.stats(seen);
        gates.lockedWhenIdle(computerId, Duration.ZERO, () -> activity.serving(computerId), () -> {
            var c = records.current(computerId);
            Instant now = records.now();
            if (c.is(ComputerState.READY) && !c.deleted() && c.pending() == null && c.settings().freezeWhenIdle()
                    && c.sandboxId().equals(seen.sandboxId()) && idleFor(c, now) && !agents.busy(c.sandboxId())) {
                agents.closeIdle(c);
                dozes.doze(c, now, stats);
            }
            return c;
        });
    }

    /** Whether a process started through the API (not the main one) still runs; yes if the agent cannot say. */
    private boolean runsProcesses(Computer c) {
        var agent = agents.of(c);
        if (agent.isEmpty()) {
            return true;
        }
        try {
            var running = agents.processes().list(agent.get()).stream()
                    .filter(p -> p.state() == ProcessInfo.State.RUNNING).map(ProcessInfo::pid).toList();
            if (running.isEmpty()) {
                return false;
            }
            int main = mainPid(agent.get());
            return running.stream().anyMatch(pid -> pid != main);
        } catch (AgentException e) {
            return true;
        }
    }

    private int mainPid(AgentEndpoint agent) {
        try {
            return agents.processes().get(agent, "main").pid();
        } catch (AgentException e) {
            if ("not_found".equals(e.code())) {
                return -1; // an image without a main process
            }
            throw e;
        }
    }
}
