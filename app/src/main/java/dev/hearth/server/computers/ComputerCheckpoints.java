package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.checkpoints.CheckpointState;
import dev.hearth.api.checkpoints.CreateCheckpoint;
import dev.hearth.api.checkpoints.SourceType;
import dev.hearth.api.operations.OperationError;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.fs.Disk;
import dev.hearth.server.checkpoints.Accepted;
import dev.hearth.server.checkpoints.CheckpointKinds;
import dev.hearth.server.checkpoints.CheckpointSource;
import dev.hearth.server.checkpoints.CheckpointStore;
import dev.hearth.server.operations.OperationKind;
import dev.hearth.server.sandbox.SandboxRuntime;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints of computers: memory, overlay and /data taken together while the computer is paused
 * (or from its sleep image while it sleeps), listed, and deleted. Restoring and forking from them
 * belong to {@link ComputerService}, which reads them here.
 */
final class ComputerCheckpoints implements CheckpointSource {
    private static final Logger LOG = LoggerFactory.getLogger(ComputerCheckpoints.class);
    // How long a checkpoint waits for commands started through exec to end: they cannot be restored.
    static final Duration EXECS_PATIENCE = Duration.ofSeconds(60);

    private final UnaryOperator<Computer> here;
    private final Jdbi jdbi;
    private final CheckpointKinds kinds;
    private final CheckpointStore store;
    private final ComputerStore computers;
    private final Gates gates;
    private final Supplier<SandboxRuntime> runtime;
    private final Dirs dirs;
    private final Clock clock;
    private final FormerAddresses formerAddresses;
    private final Agents agents;
    private final ComputerDisks disks;

    /** {@code here} returns a computer this node runs, and refuses one another node runs. */
    ComputerCheckpoints(Jdbi jdbi, CheckpointKinds kinds, ComputerStore computers, UnaryOperator<Computer> here,
                        Gates gates, Supplier<SandboxRuntime> runtime, Dirs dirs, Clock clock, Agents agents,
                        ComputerDisks disks) {
        this.here = here;
        this.agents = agents;
        this.disks = disks;
        this.jdbi = jdbi;
        this.kinds = kinds;
        this.store = kinds.store();
        this.computers = computers;
        this.gates = gates;
        this.runtime = runtime;
        this.dirs = dirs;
        this.clock = clock;
        this.formerAddresses = new FormerAddresses(dirs);
        kinds.handle(SourceType.COMPUTER, new CheckpointKinds.Handler() {
            @Override
            public void make(OperationKind.Work work) throws Exception {
                work.progress("waiting for running commands, then pausing the computer");
                makeNow(work.resource());
            }

            @Override
            public void delete(OperationKind.Work work) {
                deleteNow(work.resource());
            }
        });
    }

    // ---- the API's side

    @Override
    public Accepted create(Workspace workspace, String computerRef, CreateCheckpoint request) {
        runtime.get();
        var computer = liveComputer(workspace, computerRef);
        if (!computer.allows(Move.CHECKPOINT)) {
            throw ApiException.conflict("computer " + computer.name() + " is " + computer.state()
                    + "; only a ready or sleeping computer can be checkpointed");
        }
        Instant now = now();
        String name = Checkpoint.name(request == null ? null : request.name(), now);
        boolean keep = request != null && Boolean.TRUE.equals(request.keep());
        return kinds.begin(computer.id(), "computer " + computer.name(), name, parent -> new Checkpoint(Ids.next(),
                workspace.id(), SourceType.COMPUTER, computer.id(), name, CheckpointState.CREATING,
                computer.generation(), computer.imageDigest(), 0, parent, null, now, null, keep));
    }

    @Override
    public Page<Checkpoint> list(Workspace workspace, String computerRef, PageRequest page) {
        var computer = computer(workspace, computerRef);
        return kinds.page(computer.id(), computer.deletedAt() != null, page);
    }

    @Override
    public Checkpoint get(Workspace workspace, String computerRef, String ref) {
        var computer = computer(workspace, computerRef);
        return kinds.find(computer.id(), "computer " + computer.name(), ref);
    }

    @Override
    public Accepted delete(Workspace workspace, String computerRef, String ref) {
        here.apply(computer(workspace, computerRef));
        return kinds.delete(get(workspace, computerRef, ref), ref);
    }

    /** The workspace's kept checkpoints (templates), newest first, whether their computers live or not. */
    Page<Checkpoint> kept(Workspace workspace, PageRequest page) {
        return Page.of(jdbi.withHandle(h -> store.keptPage(h, workspace.id(), page)), page.limit(), Checkpoint::id);
    }

    /** A kept checkpoint of the workspace, by id. */
    Checkpoint keptIn(Workspace workspace, String id) {
        return jdbi.withHandle(h -> store.find(h, id))
                .filter(c -> c.workspace().equals(workspace.id()) && c.kept() && c.deletedAt() == null)
                .orElseThrow(() -> ApiException.notFound("kept checkpoint " + id));
    }

    /** Deletes a kept checkpoint on the node of the computer it was taken of (which may be deleted). */
    Accepted deleteKept(Workspace workspace, String id) {
        var checkpoint = keptIn(workspace, id);
        here.apply(current(checkpoint.source()));
        return kinds.delete(checkpoint, id);
    }

    /** A ready checkpoint of {@code computerId} to restore, by id or name. */
    Checkpoint readyOf(String computerId, String ref) {
        var checkpoint = jdbi.withHandle(h -> store.find(h, computerId, ref))
                .filter(c -> c.deletedAt() == null)
                .orElseThrow(() -> ApiException.notFound("checkpoint " + ref + " of this computer"));
        return requireReady(checkpoint);
    }

    /** A ready checkpoint of any computer of the workspace, by id: what a fork starts from. */
    Checkpoint readyIn(Workspace workspace, String checkpointId) {
        var checkpoint = jdbi.withHandle(h -> store.find(h, checkpointId))
                .filter(c -> c.workspace().equals(workspace.id()) && c.deletedAt() == null)
                .orElseThrow(() -> ApiException.invalidField("from_checkpoint", "no checkpoint " + checkpointId
                        + " in this workspace"));
        return requireReady(checkpoint);
    }

    Checkpoint find(String checkpointId) {
        return findIfAny(checkpointId).orElseThrow();
    }

    Optional<Checkpoint> findIfAny(String checkpointId) {
        return jdbi.withHandle(h -> store.find(h, checkpointId));
    }

    private static Checkpoint requireReady(Checkpoint checkpoint) {
        if (!checkpoint.is(CheckpointState.READY)) {
            throw ApiException.conflict("checkpoint " + checkpoint.name() + " is " + checkpoint.state() + ", not ready");
        }
        return checkpoint;
    }

    // ---- the work

    /**
     * Takes the checkpoint once no exec runs (they could not be restored), with the computer's gate
     * held so nothing else changes it meanwhile. New execs wait only for the pause itself.
     */
    void makeNow(String checkpointId) throws OperationKind.Failure {
        var checkpoint = find(checkpointId);
        if (!checkpoint.is(CheckpointState.CREATING)) {
            return;
        }
        var runsc = runtime.get();
        var made = gates.lockedWhenIdle(checkpoint.source(), EXECS_PATIENCE,
                () -> agents.busy(current(checkpoint.source()).sandboxId()),
                () -> capture(checkpoint, runsc));
        var result = made.orElseGet(() -> fail(checkpoint, "execs_running", "commands started through exec were still "
                + "running after " + EXECS_PATIENCE.toSeconds() + " s; a checkpoint waits for them to end because they "
                + "cannot be restored. Retry when they have ended."));
        if (result.error() != null) {
            throw new OperationKind.Failure(result.error().code(), result.error().message());
        }
    }

    private Checkpoint capture(Checkpoint checkpoint, SandboxRuntime runsc) {
        var computer = current(checkpoint.source());
        if (computer.deleted()) {
            return fail(checkpoint, "source_deleted", "computer " + computer.name() + " was deleted");
        }
        String id = checkpoint.id();
        Path dir = dirs.checkpoint(id);
        try {
            disks.discard(id);
            Files.createDirectories(dir);
            switch (computer.state()) {
                case READY -> captureRunning(computer, runsc, id);
                case SLEEPING -> {
                    if (computer.sleepsWarm()) {
                        captureWarm(computer, runsc, id);
                    } else {
                        captureAsleep(computer, id);
                    }
                }
                default -> throw new IllegalStateException("the computer is " + computer.state());
            }
            Dirs.markComplete(dir);
            // /data as a disk copy is counted by its files, as a copy of them would be (measured after the pause).
            long data = disks.holdsDisk(id) ? Disk.size(dirs.data(computer.id())) : 0;
            var ready = checkpoint.ready(Disk.size(dir) + data);
            save(ready);
            LOG.info("checkpoint {} ({}) of computer {} is ready: {} bytes", checkpoint.name(), checkpoint.id(),
                    computer.name(), ready.sizeBytes());
            return ready;
        } catch (IOException | RuntimeException e) {
            disks.discard(id);
            LOG.warn("checkpoint {} of computer {} failed", checkpoint.id(), computer.id(), e);
            return fail(checkpoint, "checkpoint_failed", e.getMessage());
        }
    }

    /**
     * /data, memory and overlay taken at one instant. When /data has been quiet, it is copied while the
     * computer runs (its disk frozen for the milliseconds of a clone, or its files copied) and the
     * checkpoint follows, pausing it only for the save; if /data is unchanged afterwards the copy is
     * exact. Otherwise, and when /data is busy, the computer is paused for the copy and the save
     * together (a runsc pause and resume cost more than the clone).
     */
    private void captureRunning(Computer computer, SandboxRuntime runsc, String id) throws IOException {
        var boot = agents.boot(computer);
        Path data = dirs.data(computer.id());
        var before = DataFingerprint.ofQuiet(data);
        if (before.isPresent()) {
            disks.take(computer, id);
            saveMemory(computer, runsc, id, boot);
            if (DataFingerprint.of(data).equals(before.get())) {
                return;
            }
            LOG.info("computer {}: /data changed during its checkpoint; taking it again, paused", computer.id());
            disks.discard(id);
            Files.createDirectories(dirs.checkpoint(id));
        }
        captureRunningPaused(computer, runsc, id, boot);
    }

    private void captureRunningPaused(Computer computer, SandboxRuntime runsc, String id, Optional<String> boot)
            throws IOException {
        runsc.pause(computer.sandboxId());
        try {
            disks.take(computer, id);
            saveMemory(computer, runsc, id, boot);
        } finally {
            runsc.resume(computer.sandboxId());
        }
    }

    private void saveMemory(Computer computer, SandboxRuntime runsc, String id, Optional<String> boot) {
        Path image = dirs.checkpointImage(id);
        runsc.checkpoint(computer.sandboxId(), image, true);
        formerAddresses.record(computer, image);
        AgentHolders.record(computer, boot, image);
    }

    /**
     * Asleep warm: thawed just for the pause the checkpoint takes anyway (the agent is asked for its
     * boot first, since a paused agent cannot answer), and frozen again after; it stays asleep.
     */
    private void captureWarm(Computer computer, SandboxRuntime runsc, String id) throws IOException {
        runsc.thaw(computer.sandboxId());
        try {
            captureRunningPaused(computer, runsc, id, agents.boot(computer));
        } finally {
            runsc.freeze(computer.sandboxId());
        }
    }

    /** Asleep cold, its sleep image already holds memory and overlay; it stays asleep. */
    private void captureAsleep(Computer computer, String id) throws IOException {
        Path sleep = dirs.sleepImage(computer.id());
        if (!Dirs.complete(sleep)) {
            throw new IOException("the computer's sleep image is incomplete");
        }
        Dirs.copy(sleep, dirs.checkpointImage(id));
        Files.deleteIfExists(dirs.checkpointImage(id).resolve(Dirs.COMPLETE));
        disks.take(computer, id);
    }

    private Checkpoint fail(Checkpoint checkpoint, String code, String message) {
        var failed = checkpoint.failed(new OperationError(code, message));
        save(failed);
        return failed;
    }

    /** Removes the files; the computer's gate keeps a restore from reading them meanwhile. */
    void deleteNow(String checkpointId) {
        var checkpoint = find(checkpointId);
        if (checkpoint.deletedAt() != null) {
            return;
        }
        gates.locked(checkpoint.source(), () -> {
            disks.discard(checkpointId);
            save(checkpoint.deleted(now()));
            return null;
        });
    }

    /**
     * Deletes every checkpoint of a computer being deleted (its gate is held by the caller), but
     * kept ones: templates outlive their computer.
     */
    void deleteAllOf(String computerId) {
        for (var c : jdbi.withHandle(h -> store.live(h, computerId))) {
            if (c.kept() && c.is(CheckpointState.READY)) {
                continue;
            }
            disks.discard(c.id());
            save(c.deleted(now()));
        }
    }

    /**
     * After a restart: a checkpoint left {@code creating} was cut short (its operation is failed as
     * interrupted), one left {@code deleting} is finished, and directories no checkpoint owns go.
     */
    void reconcile() {
        var keep = new HashSet<String>();
        for (var c : jdbi.withHandle(h -> store.liveOn(h, computers.node()))) {
            switch (c.state()) {
                case CREATING -> {
                    disks.discard(c.id());
                    fail(c, "interrupted", "hearth serve stopped while the checkpoint was being made; make it again");
                }
                case DELETING -> {
                    disks.discard(c.id());
                    save(c.deleted(now()));
                }
                case READY -> keep.add(c.id());
                default -> { }
            }
        }
        Dirs.removeUnowned(dirs.checkpoints(), keep, "no ready checkpoint");
        Dirs.removeUnowned(dirs.checkpointDisks(), keep.stream().map(id -> id + ".img").collect(Collectors.toSet()),
                "no ready checkpoint");
    }

    /** A computer's checkpoints that are whole: what moves with it to another node. */
    List<Checkpoint> wholeOf(String computerId) {
        return jdbi.withHandle(h -> store.live(h, computerId)).stream()
                .filter(c -> c.state() == CheckpointState.READY).toList();
    }

    Set<String> digestsInUse() {
        return jdbi.withHandle(store::digestsInUse);
    }

    // ---- helpers

    private Computer computer(Workspace workspace, String ref) {
        return jdbi.withHandle(h -> computers.find(h, workspace.id(), ref))
                .orElseThrow(() -> ApiException.notFound("computer " + ref));
    }

    private Computer liveComputer(Workspace workspace, String ref) {
        var computer = here.apply(computer(workspace, ref));
        if (computer.deleted()) {
            throw ApiException.conflict("computer " + computer.name() + " is deleted");
        }
        return computer;
    }

    private Computer current(String computerId) {
        return jdbi.withHandle(h -> computers.find(h, computerId)).orElseThrow();
    }

    private void save(Checkpoint c) {
        jdbi.useTransaction(h -> store.update(h, c));
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
