package dev.hearth.server.computers;

import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.operations.OperationError;
import dev.hearth.server.images.Image;
import dev.hearth.server.images.Images;
import dev.hearth.server.sandbox.SandboxStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The moves of a computer's sandbox, each alone under the computer's gate: provision (pull and
 * start, or fork) and restart after its main process exited; {@link Sleeps} has sleep and wake.
 */
final class Lifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(Lifecycle.class);
    // How long a sleep or delete waits for killed execs to end.
    static final Duration EXECS_END = Duration.ofSeconds(10);

    private final ComputerRecords records;
    private final InFlight inFlight;
    private final SandboxAccess access;
    private final Gates gates;
    private final ComputerImages images;
    private final Boots boots;
    private final Restores restores;
    // Restarts by computer name since this server started, for operators and the tests that forbid them.
    private final Map<String, Integer> restarted = new ConcurrentHashMap<>();

    private final Agents agents;

    Lifecycle(ComputerRecords records, SandboxAccess access, Gates gates, ComputerImages images, Boots boots,
              Restores restores, Agents agents, InFlight inFlight) {
        this.agents = agents;
        this.inFlight = inFlight;
        this.records = records;
        this.access = access;
        this.gates = gates;
        this.images = images;
        this.boots = boots;
        this.restores = restores;
    }

    /** Pulls (or builds) the image and starts the computer; on failure it is marked failed with the reason. */
    Computer provision(String computerId) {
        return provision(computerId, false);
    }

    /** {@code fresh}: created just now, so no sandbox of it can exist and the runtime need not be asked. */
    Computer provision(String computerId, boolean fresh) {
        return gates.locked(computerId, () -> {
            var computer = records.current(computerId);
            if (computer.deleted()) {
                return computer;
            }
            try {
                if (computer.fromCheckpoint() != null && computer.is(ComputerState.CREATING)) {
                    return restores.fork(computer);
                }
                var image = images.pulled(computer.workspace(), computer.image())
                        .orElseGet(() -> images.pull(computer, records.now()));
                return boots.start(computer, image, fresh);
            } catch (Images.PullFailure e) {
                return records.fail(computer, "image_pull_failed", e.getMessage());
            } catch (RuntimeException e) {
                LOG.warn("computer {} did not start", computerId, e);
                return records.fail(computer, "start_failed", e.getMessage());
            }
        });
    }

    /**
     * Makes a pooled sandbox the computer's (inserted on its slot, with its id, just now). A claim
     * that fails starts the computer cold instead, as if there had been no pool.
     */
    Computer claim(String computerId, Image image) {
        return gates.locked(computerId, () -> {
            var computer = records.current(computerId);
            try {
                return boots.claim(computer, image);
            } catch (IOException | RuntimeException e) {
                LOG.warn("computer {} ({}): its pooled sandbox could not be claimed; starting it cold", computer.name(),
                        computerId, e);
                access.get().delete(computer.sandboxId());
            }
            try {
                return boots.start(computer, image, true);
            } catch (RuntimeException e) {
                LOG.warn("computer {} did not start", computerId, e);
                return records.fail(computer, "start_failed", e.getMessage());
            }
        });
    }

    /** Whether the computer's image is here already (built in, or pulled), so it starts without a pull. */
    boolean canStartAtOnce(Computer computer) {
        return Images.isLocal(computer.image()) || images.pulled(computer.workspace(), computer.image()).isPresent();
    }

    /**
     * The sandbox was removed: requests in flight to its agent (followers of output, watches) and through
     * the router end now.
     * A dead sandbox's netstack neither answers nor resets, and followers do not hold the gate.
     */
    void removed(Computer c) {
        agents.abandon(c.sandboxId());
        inFlight.endAll(c.id(), "the computer was deleted");
    }

    /**
     * The supervisor saw the computer's sandbox stopped or gone: if runsc says so too, requests in
     * flight to its agent and its ports end at once. Outside the gate, which an exec in flight may hold.
     */
    void sandboxDown(Computer c) {
        if (access.get().state(c.sandboxId()).filter(SandboxStatus::alive).isEmpty()) {
            agents.abandon(c.sandboxId());
            inFlight.endAll(c.id(), "the computer's sandbox ended while it answered (see its log and error); "
                    + "it restarts as its restart policy says");
        }
    }

    /**
     * The supervisor saw the main process exit: start the computer again and say so in {@code error}.
     * Asked again under the gate, since the supervisor's look may be stale (the sandbox was replaced
     * by a wake or a restore, or paused by a checkpoint): a sandbox that runs is never restarted.
     */
    boolean restartAfterExit(String computerId, int count) {
        return gates.locked(computerId, () -> {
            var c = records.current(computerId);
            if (!c.allowsNow(Move.RESTART)) {
                return false;
            }
            var status = access.get().state(c.sandboxId());
            if (status.filter(SandboxStatus::alive).isPresent()) {
                LOG.debug("computer {} ({}) runs after all; not restarted", c.name(), computerId);
                return false;
            }
            boolean outOfMemory = access.get().outOfMemory(c.sandboxId());
            LOG.warn("computer {} ({}): its main process exited (sandbox {}{}); restarting, restart {}", c.name(),
                    computerId, status.map(SandboxStatus::word).orElse("gone"), outOfMemory ? ", out of memory" : "",
                    count);
            restarted.merge(c.name(), 1, Integer::sum);
            try {
                var started = boots.start(c, images.ofRunning(c), false);
                String how = outOfMemory ? OUT_OF_MEMORY : c.mainExit().map(e -> "exited with " + e.exitCode()
                        + " at " + e.endedAt()).orElse("exited");
                records.save(started.noted(new OperationError("restarted", "the main process " + how
                        + "; restarted at " + records.now() + " (restart " + count + ")"), records.now()));
            } catch (RuntimeException e) {
                LOG.warn("restarting computer {} failed; will retry", computerId, e);
            }
            return true;
        });
    }

    /**
     * What a running sandbox adopted at start lacks that it needs to serve (its network, its disk, an
     * agent that answers), in words; empty when it is whole.
     */
    List<String> missingParts(Computer c, Path diskDir) {
        var missing = new ArrayList<>(access.get().missing(c.slot(), Optional.of(diskDir)));
        if (missing.isEmpty() && !agents.answers(c, AGENT_ANSWERS)) {
            missing.add("an agent that answers (none did within " + AGENT_ANSWERS.toSeconds() + " s)");
        }
        return missing;
    }

    private static final String OUT_OF_MEMORY = "ended with its whole sandbox: the host's memory limit on it "
            + "(memory_mb and room for gVisor's own kernel) was reached, out of memory";

    // How long an adopted sandbox's agent has to answer before the sandbox is taken for broken.
    private static final Duration AGENT_ANSWERS = Duration.ofSeconds(10);

    /** A running sandbox adopted at start: its main process is waited for again. */
    void adoptedRunning(Computer c) {
        if (access.get().runsProcesses()) {
            agents.watchMain(c);
        }
    }

    /**
     * A sandbox restored from {@code imageDir} by a wake cut short, adopted at start: its agent may
     * not have been renewed yet (deaf: it accepts and never answers), so it is renewed as after any
     * restore (see {@link Agents#restored}).
     */
    void adoptedRestored(Computer c, Path imageDir) {
        var runtime = access.get();
        if (runtime.runsProcesses()) {
            agents.restored(c, AgentHolders.of(imageDir),
                    () -> runtime.state(c.sandboxId()).filter(SandboxStatus.RUNNING::equals).isPresent(),
                    () -> runtime.signalInit(c.sandboxId(), "PWR"));
        }
    }

    /** Restarts after an exit, by computer name, since this server started. */
    Map<String, Integer> restarts() {
        return Map.copyOf(restarted);
    }

    /** A change that ends the computer's execs first (sleep, delete, restore). */
    <T> T lockedEndingExecs(String computerId, Supplier<T> work) {
        return gates.lockedEndingExecs(computerId, () -> {
            var c = records.current(computerId);
            agents.endExecs(c.sandboxId(), EXECS_END);
        }, work);
    }
}
