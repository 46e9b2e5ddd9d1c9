package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.checkpoints.CheckpointState;
import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.Pending;
import dev.hearth.fs.Disk;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computers made from checkpoints: a fork (a new computer's first sandbox restored from another's
 * checkpoint) and a restore in place (a computer rolled back to one of its own, generation + 1).
 */
final class Restores {
    private static final Logger LOG = LoggerFactory.getLogger(Restores.class);

    private final ComputerRecords records;
    private final SandboxAccess access;
    private final Gates gates;
    private final Activity activity;
    private final Dirs dirs;
    private final ComputerCheckpoints checkpoints;
    private final Boots boots;
    private final ComputerDisks disks;

    Restores(ComputerRecords records, SandboxAccess access, Gates gates, Activity activity, Dirs dirs,
             ComputerCheckpoints checkpoints, Boots boots, ComputerDisks disks) {
        this.disks = disks;
        this.records = records;
        this.access = access;
        this.gates = gates;
        this.activity = activity;
        this.dirs = dirs;
        this.checkpoints = checkpoints;
        this.boots = boots;
    }

    /**
     * Copies the checkpoint's /data and restores its image into this computer's first sandbox. The
     * source's gate is held shared, so the checkpoint cannot be deleted under the copy.
     */
    Computer fork(Computer computer) {
        var runsc = access.get();
        var checkpoint = checkpoints.find(computer.fromCheckpoint());
        var shared = gates.of(checkpoint.source()).lock().readLock();
        shared.lock();
        try {
            if (!checkpoint.is(CheckpointState.READY) || checkpoint.deletedAt() != null) {
                return records.fail(computer, "checkpoint_gone", "checkpoint " + checkpoint.name() + " was deleted "
                        + "before the computer was made from it");
            }
            runsc.state(computer.sandboxId()).ifPresent(s -> runsc.delete(computer.sandboxId()));
            disks.intoNew(checkpoint.id(), computer);
            boots.restoreInto(computer, dirs.checkpointImage(checkpoint.id()));
        } catch (IOException | RuntimeException e) {
            LOG.warn("computer {} could not be made from checkpoint {}", computer.id(), checkpoint.id(), e);
            runsc.delete(computer.sandboxId());
            return records.fail(computer, "fork_failed", "could not restore checkpoint " + checkpoint.name() + ": "
                    + e.getMessage());
        } finally {
            shared.unlock();
        }
        var ready = records.save(computer.started(computer.imageDigest(), records.now()));
        activity.restarted(computer.id(), ready.times().lastStartedAt());
        return ready;
    }

    /**
     * Rolls the computer back to one of its checkpoints: its sandbox (or sleep image) is discarded,
     * /data becomes the checkpoint's copy, and it runs from the checkpoint's memory and overlay in a
     * new sandbox, {@code generation} one up. The caller holds the gate with the execs ended.
     */
    Computer restore(String computerId, Checkpoint checkpoint) {
        var runsc = access.get();
        var computer = records.current(computerId);
        Path staged = stageData(computerId, checkpoint);
        runsc.delete(computer.sandboxId());
        Disk.deleteTree(dirs.sleepImage(computerId));
        // Pending while it runs: the supervisor leaves it alone, and a crash leaves it failed, not half-done.
        var next = records.save(computer.nextIncarnation(computer.generation() + 1, records.now())
                .withStatus(computer.state(), Pending.RESTORING, computer.error(), records.now()));
        try {
            disks.swap(next, staged);
            boots.restoreInto(next, dirs.checkpointImage(checkpoint.id()));
        } catch (IOException | RuntimeException e) {
            LOG.warn("restoring computer {} from checkpoint {} failed", computerId, checkpoint.id(), e);
            runsc.delete(next.sandboxId());
            records.fail(next.withStatus(ComputerState.FAILED, null, null, records.now()), "restore_failed",
                    "could not restore checkpoint " + checkpoint.name() + ": " + e.getMessage()
                            + "; restore again, or delete the computer");
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "computer " + next.name() + " could not be restored: "
                    + e.getMessage());
        }
        var ready = records.save(next.withStatus(ComputerState.READY, null, null, records.now())
                .started(next.imageDigest(), records.now()));
        activity.restarted(computerId, ready.times().lastStartedAt());
        LOG.info("computer {} ({}) restored from checkpoint {} (generation {})", next.name(), computerId,
                checkpoint.name(), next.generation());
        return ready;
    }

    /** Copied before anything is stopped: a copy that fails (disk full) leaves the computer as it was. */
    private Path stageData(String computerId, Checkpoint checkpoint) {
        try {
            return disks.stage(checkpoint.id(), computerId);
        } catch (IOException | RuntimeException e) {
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "could not copy the checkpoint's /data: "
                    + e.getMessage());
        }
    }
}
