package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.SleepMode;
import dev.hearth.api.operations.OperationError;
import dev.hearth.fs.Disk;
import dev.hearth.server.metrics.Timings;
import dev.hearth.server.process.Commands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sleep in two depths, each move alone under the computer's gate. A computer falls asleep warm (its
 * sandbox frozen in its cgroup: no CPU, memory kept) and goes cold later (memory and overlay
 * checkpointed to disk, the sandbox gone); with no warm period it goes cold at once. A wake thaws a
 * warm sleeper and restores a cold one.
 */
final class Sleeps {
    private static final Logger LOG = LoggerFactory.getLogger(Sleeps.class);

    private final ComputerRecords records;
    private final SandboxAccess access;
    private final Gates gates;
    private final Activity activity;
    private final Dirs dirs;
    private final Boots boots;
    private final Networking networking;
    private final Agents agents;
    private final Lifecycle lifecycle;
    private final SleepSettings settings;
    private final Timings timings;

    Sleeps(ComputerRecords records, SandboxAccess access, Gates gates, Activity activity, Dirs dirs, Boots boots,
           Networking networking, Agents agents, Lifecycle lifecycle, SleepSettings settings, Timings timings) {
        this.records = records;
        this.access = access;
        this.gates = gates;
        this.activity = activity;
        this.dirs = dirs;
        this.boots = boots;
        this.networking = networking;
        this.agents = agents;
        this.lifecycle = lifecycle;
        this.settings = settings;
        this.timings = timings;
    }

    /** Puts a ready computer to sleep, its execs ended: warm, or cold when the server keeps no warm sleepers. */
    Computer sleepNow(String computerId) {
        return lifecycle.lockedEndingExecs(computerId, () -> {
            var computer = records.current(computerId);
            if (!computer.allows(Move.SLEEP)) {
                return computer;
            }
            agents.endExecs(computer.sandboxId(), Lifecycle.EXECS_END);
            try {
                boolean warm = settings.warm() && !limitsChanged(computer);
                var asleep = warm ? freeze(computer) : checkpointToDisk(computer, records.now());
                networking.asleep(asleep, true);
                return asleep;
            } catch (IOException | RuntimeException e) {
                // Frozen but not recorded asleep (the store failed): it must not stay frozen while it reads ready.
                access.get().thaw(computer.sandboxId());
                records.save(computer.withStatus(ComputerState.READY, null,
                        new OperationError("sleep_failed", e.getMessage()), records.now()));
                throw new Commands.Failure("the computer could not sleep: " + e.getMessage());
            }
        });
    }

    /**
     * Whether its resources were changed (PATCH) since its sandbox started. They apply from the next
     * start, and a sleep and wake is the documented way to apply them now; a warm wake starts
     * nothing, so such a sleep goes cold at once and its wake restores with the new limits.
     */
    private boolean limitsChanged(Computer computer) {
        var wanted = computer.settings().resources();
        boolean limits = access.get().limits(computer.sandboxId())
                .map(had -> had.memoryBytes() != (long) wanted.memoryMb() << 20
                        || Math.abs(had.cpus() - wanted.cpus()) > 0.001 || had.pids() != wanted.pids())
                .orElse(false);
        return limits || diskWaitsToGrow(computer);
    }

    /** A disk PATCH grew is grown before the sandbox's next start (an ext4 in use grows only with CAP_SYS_RESOURCE). */
    private boolean diskWaitsToGrow(Computer computer) {
        int mb = computer.settings().resources().diskMb();
        Path image = dirs.disk(computer.id());
        try {
            return Files.exists(image) && Files.size(image) < (long) mb << 20;
        } catch (IOException e) {
            return false;
        }
    }

    private Computer freeze(Computer computer) {
        access.get().freeze(computer.sandboxId());
        Instant now = records.now();
        var asleep = records.save(computer.asleep(SleepMode.WARM, now, now));
        LOG.info("computer {} ({}) is asleep, warm", computer.name(), computer.id());
        return asleep;
    }

    /**
     * A warm sleeper goes cold: thawed, its memory and overlay checkpointed to disk, its sandbox
     * deleted. One that cannot be is frozen again and stays warm (the next pass tries again).
     */
    Computer deepen(String computerId) {
        return lifecycle.lockedEndingExecs(computerId, () -> {
            var computer = records.current(computerId);
            if (computer.phase() != Phase.ASLEEP_WARM) {
                return computer;
            }
            var runtime = access.get();
            runtime.thaw(computer.sandboxId());
            try {
                return checkpointToDisk(computer, computer.sleep().since());
            } catch (IOException | RuntimeException e) {
                LOG.warn("computer {} ({}) could not go cold; it stays warm", computer.name(), computer.id(), e);
                runtime.freeze(computer.sandboxId());
                return computer;
            }
        });
    }

    /** The sandbox's memory and overlay to the sleep image, then the sandbox goes; /data stays where it is. */
    private Computer checkpointToDisk(Computer computer, Instant since) throws IOException {
        var runtime = access.get();
        var boot = agents.boot(computer);
        Path image = dirs.sleepImage(computer.id());
        Disk.deleteTree(image);
        try {
            runtime.checkpoint(computer.sandboxId(), image, false);
            boots.saved(computer, boot, image);
            Dirs.markComplete(image);
        } catch (IOException | RuntimeException e) {
            Disk.deleteTree(image);
            throw e;
        }
        runtime.delete(computer.sandboxId());
        var asleep = records.save(computer.asleep(SleepMode.COLD, since, records.now()));
        LOG.info("computer {} ({}) is asleep, cold", computer.name(), computer.id());
        return asleep;
    }

    /**
     * Wakes a sleeping computer: a warm one is thawed where it stood; a cold one is restored from its
     * sleep image into a new sandbox, whose id is stored before the restore so a crash in between
     * finds and adopts it.
     */
    Computer wakeNow(String computerId) {
        long start = System.nanoTime();
        return gates.locked(computerId, () -> {
            var computer = records.current(computerId);
            if (!computer.allows(Move.WAKE)) {
                return computer;
            }
            var awake = computer.sleepsWarm() ? thawMarked(computer) : restore(computer);
            if (!computer.sleepsWarm()) {
                networking.asleep(awake, false);
            }
            activity.restarted(computerId, records.now());
            timings.record(Timings.Event.COMPUTER_WAKE, System.nanoTime() - start);
            return awake;
        });
    }

    /**
     * A warm wake is a few short steps, so they overlap: the firewall's mark (libnftables, ~1 ms)
     * is changed while the sandbox thaws (2-5 ms), and put back if the thaw fails.
     */
    private Computer thawMarked(Computer computer) {
        var marked = Thread.ofVirtual().name("wake-mark").start(() -> networking.asleep(computer, false));
        try {
            var awake = thaw(computer);
            join(marked);
            return awake;
        } catch (RuntimeException e) {
            join(marked);
            networking.asleep(computer, true);
            throw e;
        }
    }

    /** Waits for a helper thread of a wake or a thaw to end. */
    static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Computer thaw(Computer computer) {
        try {
            access.get().thaw(computer.sandboxId());
        } catch (RuntimeException e) {
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "computer " + computer.name() + " could not wake: "
                    + e.getMessage());
        }
        var awake = records.save(computer.withStatus(ComputerState.READY, null, computer.error(), records.now()));
        // Watched already unless hearth serve restarted while it slept (its frozen agent could not be asked then).
        lifecycle.adoptedRunning(awake);
        return awake;
    }

    private Computer restore(Computer computer) {
        var next = records.save(computer.nextIncarnation(computer.generation(), records.now()));
        try {
            boots.restoreInto(next, dirs.sleepImage(next.id()));
        } catch (IOException | RuntimeException e) {
            access.get().delete(next.sandboxId());
            records.save(next.withStatus(ComputerState.SLEEPING, null,
                    new OperationError("wake_failed", e.getMessage()), records.now()));
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "computer " + next.name() + " could not wake: "
                    + e.getMessage());
        }
        var ready = records.save(next.started(next.imageDigest(), records.now()));
        Disk.deleteTree(dirs.sleepImage(next.id()));
        return ready;
    }
}
