package dev.hearth.server.computers;

import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.Pending;
import dev.hearth.api.computers.SleepMode;
import dev.hearth.api.operations.OperationError;
import dev.hearth.fs.Disk;
import dev.hearth.server.sandbox.SandboxRuntime;
import dev.hearth.server.sandbox.SandboxStatus;
import dev.hearth.server.sandbox.Slot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles the store with what runs when {@code hearth serve} starts: the computers the store
 * says exist are adopted, resumed, finished or started again; what no computer owns (sandboxes,
 * network namespaces, directories, cgroups, checkpoint files) is removed.
 */
final class Reconciler {
    private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);
    private final Lifecycle lifecycle;
    private final ComputerRecords records;
    private final SandboxRuntime runsc;
    private final Dirs dirs;
    private final ComputerCheckpoints checkpoints;
    private final Networking networking;
    private final UnaryOperator<Computer> removal;
    private final Consumer<Computer> pull;

    /** {@code removal} finishes a delete; {@code pull} resumes a create that must pull, if no operation will. */
    Reconciler(Lifecycle lifecycle, ComputerRecords records, SandboxRuntime runsc, Dirs dirs,
               ComputerCheckpoints checkpoints, Networking networking, UnaryOperator<Computer> removal,
               Consumer<Computer> pull) {
        this.removal = removal;
        this.pull = pull;
        this.lifecycle = lifecycle;
        this.records = records;
        this.runsc = runsc;
        this.dirs = dirs;
        this.checkpoints = checkpoints;
        this.networking = networking;
    }

    /**
     * Makes what runs match the store after a start: running sandboxes of ready computers are
     * adopted, ready computers whose sandbox died are started again, and sandboxes, networks and
     * directories no live computer owns are removed.
     */
    void run() {
        var live = finishDeletes(records.live());
        live.forEach(this::mountDisk);
        // Rules first, as the store says: every live computer's, and none of computers gone.
        networking.reset(live);
        var owned = new HashSet<String>();
        for (var c : live) {
            owned.add(c.sandboxId());
            if (c.is(ComputerState.READY) || c.is(ComputerState.SLEEPING)) {
                settle(c);
            } else if (c.is(ComputerState.CREATING)) {
                finishCreate(c);
            }
        }
        for (String orphan : runsc.sandboxes().keySet()) {
            if (!owned.contains(orphan)) {
                LOG.warn("removing sandbox {}, which no computer owns", orphan);
                runsc.delete(orphan);
            }
        }
        var liveIds = new HashSet<String>();
        var liveSlots = new HashSet<Slot>();
        live.forEach(c -> {
            liveIds.add(c.id());
            liveSlots.add(c.slot());
        });
        for (var slot : runsc.networks()) {
            if (!liveSlots.contains(slot)) {
                LOG.warn("removing network {}, which no computer owns", slot.netns());
                runsc.removeNetwork(slot);
            }
        }
        removeUnownedDisks(liveIds);
        Dirs.removeUnowned(dirs.computers(), liveIds, "no computer");
        checkpoints.reconcile();
        int cgroups = runsc.pruneCgroups(owned);
        if (cgroups > 0) {
            LOG.warn("removed {} cgroups that no running sandbox owns", cgroups);
        }
    }

    /** Loop mounts do not outlive a reboot: a computer's files come back before anything reads them. */
    private void mountDisk(Computer c) {
        int mb = c.settings().resources().diskMb();
        Path image = dirs.disk(c.id());
        if (!Files.exists(image)) {
            return;
        }
        try {
            runsc.prepareDisk(dirs.computer(c.id()), image, (long) mb << 20);
        } catch (RuntimeException e) {
            LOG.warn("cannot mount the disk of computer {} ({}); its next start tries again", c.name(), c.id(), e);
        }
    }

    private void removeUnownedDisks(Set<String> liveIds) {
        if (!Files.isDirectory(dirs.disks())) {
            return;
        }
        try (var images = Files.list(dirs.disks())) {
            for (Path image : images.filter(Files::isRegularFile).toList()) {
                String name = image.getFileName().toString();
                String id = name.split("\\.")[0];
                if (!name.endsWith(".img")) {
                    LOG.warn("removing {}, a copy cut short", image); // a restore's staged disk
                    Files.delete(image);
                } else if (!liveIds.contains(id)) {
                    LOG.warn("removing disk {}, which no computer owns", image);
                    runsc.removeDisk(dirs.computer(id), image);
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot list {}", dirs.disks(), e);
        }
    }

    /**
     * A create cut short: one with nothing left to pull is finished now (adopting the sandbox it may
     * have started); one that must pull goes on in a {@code computer.create} operation, its own if it
     * had one by then.
     */
    private void finishCreate(Computer c) {
        LOG.warn("computer {} ({}) was being created; finishing it", c.name(), c.id());
        if (c.fromCheckpoint() != null || lifecycle.canStartAtOnce(c)) {
            lifecycle.provision(c.id());
        } else {
            pull.accept(c);
        }
    }

    /** Deletes a crash cut short are finished; answers the computers that stay. */
    private List<Computer> finishDeletes(List<Computer> live) {
        var staying = new ArrayList<Computer>();
        for (var c : live) {
            if (c.pending() == Pending.DELETING) {
                LOG.warn("computer {} ({}) was being deleted; finishing the delete", c.name(), c.id());
                removal.apply(c);
            } else {
                staying.add(c);
            }
        }
        return staying;
    }

    /**
     * A warm sleeper whose sandbox is there stays so: frozen again (a checkpoint cut short may have
     * left it thawed, or paused), a sleep image a move to cold left half written removed. Its main
     * process is watched again from its wake: a frozen agent does not answer.
     */
    private void keepWarm(Computer c, SandboxStatus status) {
        if (status == SandboxStatus.PAUSED) {
            runsc.thaw(c.sandboxId());
            runsc.resume(c.sandboxId());
        }
        runsc.freeze(c.sandboxId());
        if (!Dirs.complete(dirs.sleepImage(c.id()))) {
            Disk.deleteTree(dirs.sleepImage(c.id()));
        }
        LOG.info("computer {} ({}) sleeps warm; adopted", c.name(), c.id());
    }

    /** Starts the computer again from its image, its memory lost, and says why in its error. */
    private void startAfresh(Computer c, String lost) {
        var why = new OperationError("memory_lost", lost + "; the computer started afresh from its image (/data is kept)");
        records.save(c.withStatus(ComputerState.READY, null, why, records.now()));
        // A start clears the error of the computer it starts: this one must still say why its memory is gone.
        var started = lifecycle.provision(c.id());
        if (started.is(ComputerState.READY)) {
            records.save(started.noted(why, records.now()));
        }
    }

    /**
     * One computer after a restart, by what runs and where the store says it was: a warm sleeper
     * whose sandbox is there stays asleep; a running sandbox is adopted (and the computer is awake,
     * whatever move it was in); without one, a computer that was awake starts again and one that
     * slept or was falling asleep is asleep cold if its sleep image is complete.
     */
    private void settle(Computer c) {
        var state = runsc.state(c.sandboxId());
        if (c.phase() == Phase.ASLEEP_WARM && state.filter(SandboxStatus::alive).isPresent()) {
            keepWarm(c, state.get());
        } else if (runningAgain(c, state)) {
            adoptRunning(c);
        } else if (c.pending() == Pending.RESTORING) {
            LOG.warn("computer {} ({}) was being restored when hearth stopped", c.name(), c.id());
            records.fail(c.withStatus(ComputerState.FAILED, null, null, records.now()), "restore_interrupted",
                    "hearth serve stopped while the computer was being restored from a checkpoint; restore it again, "
                            + "or delete it");
        } else {
            state.ifPresent(s -> runsc.delete(c.sandboxId()));
            if (c.phase() == Phase.AWAKE) {
                LOG.warn("computer {} ({}) was not running; starting it again", c.name(), c.id());
                lifecycle.provision(c.id());
            } else {
                fromSleepImage(c);
            }
        }
    }

    /** Whether the sandbox runs, once thawed or resumed from what a sleep, wake or checkpoint cut short left. */
    private boolean runningAgain(Computer c, Optional<SandboxStatus> state) {
        if (state.isPresent() && runsc.frozen(c.sandboxId())) {
            LOG.info("computer {} ({}) was left frozen (idle, or a sleep or wake cut short); thawing it", c.name(), c.id());
            runsc.thaw(c.sandboxId());
        }
        if (state.filter(SandboxStatus.PAUSED::equals).isPresent()) {
            LOG.warn("computer {} ({}) was left paused (by a checkpoint); resuming it", c.name(), c.id());
            runsc.resume(c.sandboxId());
            return true;
        }
        return state.filter(SandboxStatus.RUNNING::equals).isPresent();
    }

    /**
     * A running sandbox is the computer awake: a wake that restored it, or a sleep that never
     * stopped it, is over. One that runs without its rules, disk or agent starts afresh.
     */
    private void adoptRunning(Computer c) {
        if (c.phase() != Phase.AWAKE) {
            if (c.is(ComputerState.SLEEPING) && Dirs.complete(dirs.sleepImage(c.id()))) {
                lifecycle.adoptedRestored(c, dirs.sleepImage(c.id()));
            }
            records.save(c.withStatus(ComputerState.READY, null, c.error(), records.now()));
            Disk.deleteTree(dirs.sleepImage(c.id()));
        }
        var missing = lifecycle.missingParts(c, dirs.computer(c.id()));
        if (!missing.isEmpty()) {
            LOG.warn("computer {} ({}) runs without {}; starting it afresh", c.name(), c.id(), String.join(", ", missing));
            runsc.delete(c.sandboxId());
            startAfresh(records.current(c.id()), "its sandbox ran on without " + String.join(", ", missing)
                    + " after hearth serve stopped");
            return;
        }
        LOG.info("adopted running computer {} ({})", c.name(), c.id());
        lifecycle.adoptedRunning(c);
    }

    /** Asleep, or falling asleep, with no sandbox: asleep cold if its sleep image is whole, else started afresh. */
    private void fromSleepImage(Computer c) {
        if (Dirs.complete(dirs.sleepImage(c.id()))) {
            var since = c.sleep() == null ? records.now() : c.sleep().since();
            records.save(c.asleep(SleepMode.COLD, since, records.now()));
            LOG.info("computer {} ({}) is asleep, cold", c.name(), c.id());
            return;
        }
        LOG.warn("computer {} ({}) has no complete sleep image; starting it from its image", c.name(), c.id());
        startAfresh(c, c.sleepsWarm() ? "its sandbox, frozen in memory, was gone (the host restarted)"
                : "the sleep image was incomplete after a crash");
    }
}
