package dev.hearth.server.computers;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Json;
import dev.hearth.api.Validate;
import dev.hearth.fs.Disk;
import dev.hearth.server.checkpoints.Checkpoint;
import dev.hearth.server.checkpoints.CheckpointKinds;
import dev.hearth.server.checkpoints.CheckpointState;
import dev.hearth.server.computers.Computer.Port;
import dev.hearth.server.images.Image;
import dev.hearth.server.images.ImageStore;
import dev.hearth.server.images.Images;
import dev.hearth.server.images.WorkspaceImage;
import dev.hearth.server.operations.Operation;
import dev.hearth.server.operations.OperationKind;
import dev.hearth.server.operations.Operations;
import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.Exec;
import dev.hearth.server.sandbox.SandboxRuntime;
import dev.hearth.server.sandbox.SandboxSpec;
import dev.hearth.server.sandbox.Slot;
import dev.hearth.server.sandbox.Terminal;
import dev.hearth.server.store.Constraints;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.tenancy.Workspace;
import dev.hearth.server.variables.VariableService;
import dev.hearth.server.workspaces.Contents;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules of computers: create from an image (pulling it in an operation when needed), exec with
 * the environment resolved at call time, protect, delete, and reconcile with the runtime on start.
 * Changes to one computer are serialized; different computers proceed in parallel.
 */
public final class ComputerService {
    private static final Logger LOG = LoggerFactory.getLogger(ComputerService.class);
    public static final int OUTPUT_CAP = 1 << 20;
    public static final String CREATE_KIND = "computer.create";
    public static final String SLEEP_KIND = "computer.sleep";
    // How long POST sleep waits before answering 202 with the operation (decisions.md).
    static final Duration SLEEP_WAIT = Duration.ofSeconds(10);
    // How long a sleep or delete waits for killed execs to end.
    static final Duration EXECS_END = Duration.ofSeconds(10);
    // PID 1 for images that name no command: keeps the computer up and reaps orphans, shell or not.
    static final List<String> IDLE_INIT = List.of("/.hearth/busybox", "sh", "-c",
            "trap 'exit 0' TERM; while :; do /.hearth/busybox sleep 3600 & wait $!; done");

    public record PortRequest(Integer target, Integer published, String protocol,
                              @JsonProperty("private") Boolean privateAccess) {
    }

    public record ResourcesRequest(Double cpus, Integer memoryMb) {
    }

    public record CreateComputer(String name, String image, JsonNode env, List<PortRequest> ports,
                                 @JsonProperty("protected") Boolean protectedFlag, ResourcesRequest resources,
                                 JsonNode autoSleepSeconds, String fromCheckpoint) {
    }

    /** {@code POST /computers/{cmp}/restore}: the checkpoint, by id or name. */
    public record RestoreRequest(String checkpoint) {
    }

    public record UpdateComputer(String name, JsonNode env, @JsonProperty("protected") Boolean protectedFlag,
                                 JsonNode autoSleepSeconds, List<PortRequest> ports) {
    }

    /** A sleep's answer: the computer (asleep, or pending "sleeping" with the operation to follow). */
    public record Slept(ComputerView computer, Optional<Operation> operation) {
    }

    /** A create's answer: the computer, and the operation to follow when it is not ready yet. */
    public record Created(ComputerView computer, Optional<Operation> operation) {
    }

    private final Jdbi jdbi;
    private final ComputerStore store;
    private final VariableService variables;
    private final Images images;
    private final Optional<SandboxRuntime> runtime;
    private final String unavailable;
    private final Operations operations;
    private final Dirs dirs;
    // The router's domain and port as its URLs name them ("localhost:7301"); known once it listens.
    private final Supplier<String> routerHost;
    private final ComputerCheckpoints checkpoints;
    private final Path toolsDir;
    private final Clock clock;
    private final Gates gates = new Gates();
    private final Activity activity = new Activity();
    private final Optional<ComputerSupervisor> supervisor;

    private final ImageStore pulledImages;

    public ComputerService(Jdbi jdbi, ComputerStore store, VariableService variables, Images images,
                           ImageStore pulledImages, Optional<SandboxRuntime> runtime, String unavailable,
                           Operations operations, CheckpointKinds checkpointKinds, Path dataDir, Clock clock,
                           Supplier<String> routerHost) {
        this.routerHost = routerHost;
        this.jdbi = jdbi;
        this.store = store;
        this.pulledImages = pulledImages;
        this.variables = variables;
        this.images = images;
        this.runtime = runtime;
        this.unavailable = unavailable;
        this.operations = operations;
        this.dirs = Dirs.under(dataDir);
        this.checkpoints = new ComputerCheckpoints(jdbi, checkpointKinds, store, gates, this::runtime, dirs, clock);
        this.toolsDir = dataDir.resolve("tools");
        this.clock = clock;
        // computer.create (pull and start) is repeatable, so resumed after a crash; computer.sleep is
        // not: reconcile settles a computer whose sleep was cut short.
        operations.register(OperationKind.of(CREATE_KIND, true, this::createWork));
        operations.register(OperationKind.of(SLEEP_KIND, false, this::sleepWork));
        this.supervisor = runtime.map(r -> new ComputerSupervisor(this, jdbi, store, r, activity, clock));
        supervisor.ifPresent(ComputerSupervisor::start);
    }

    /** Stops watching computers; they keep running, and the next start adopts them. */
    public void close() {
        supervisor.ifPresent(ComputerSupervisor::stop);
    }

    /** The supervisor saw the main process exit: start the computer again and say so in {@code error}. */
    void restartAfterExit(String computerId, int count) {
        locked(computerId, () -> {
            var c = jdbi.withHandle(h -> store.find(h, computerId)).orElseThrow();
            if (c.deletedAt() != null || !c.state().equals(Computer.READY)) {
                return null;
            }
            try {
                var image = images.unpacked(c.image(), c.imageDigest()).orElseGet(() -> images.resolve(c.image()));
                var started = start(c, image, false);
                var noted = started.with(Computer.READY, started.imageDigest(), started.generation(),
                        new Operation.Error("restarted", "the main process exited; restarted at " + now() + " (restart "
                                + count + ")"), now(), started.lastStartedAt());
                jdbi.useTransaction(h -> store.update(h, noted));
            } catch (RuntimeException e) {
                LOG.warn("restarting computer {} failed; will retry", computerId, e);
            }
            return null;
        });
    }

    ComputerCheckpoints checkpoints() {
        return checkpoints;
    }

    public Contents contents() {
        return new Contents() {
            @Override
            public String noun() {
                return "computers";
            }

            @Override
            public long count(Handle h, String workspace) {
                return store.countLive(h, workspace);
            }
        };
    }

    // ---- create

    public Created create(Workspace workspace, CreateComputer request) {
        runtime();
        if (request.fromCheckpoint() != null) {
            return fork(workspace, request);
        }
        String name = Validate.dnsLabel("name", request.name());
        String image = Validate.required("image", request.image());
        Images.invalid(image).ifPresent(problem -> {
            throw ApiException.invalidField("image", problem);
        });
        var env = EnvValue.parse(request.env(), false);
        var ports = ComputerInput.ports(request.ports());
        var resources = ComputerInput.resources(request.resources());
        Instant now = now();
        Integer autoSleep = ComputerInput.autoSleep(request.autoSleepSeconds(), null);
        var computer = insert(new Computer(Ids.next(), workspace.id(), name, Computer.CREATING, null, image, null, env,
                ports, resources.cpus(), resources.memoryMb(), Boolean.TRUE.equals(request.protectedFlag()), autoSleep,
                1, 1, null, null, null, null, now, now, null, null, null));
        if (Images.isLocal(image) || pulled(workspace.id(), image).isPresent()) {
            return new Created(view(provision(computer.id(), true), workspace), Optional.empty());
        }
        var op = operations.begin(CREATE_KIND, workspace.id(), computer.id(), Json.mapper().createObjectNode());
        return new Created(view(computer, workspace), Optional.of(op));
    }

    /**
     * A new computer from a checkpoint: the source computer's image, environment, ports and
     * resources unless the request sets them, its memory, overlay and /data from the checkpoint.
     */
    private Created fork(Workspace workspace, CreateComputer request) {
        String name = Validate.dnsLabel("name", request.name());
        var checkpoint = checkpoints.readyIn(workspace, request.fromCheckpoint());
        var source = current(checkpoint.source());
        if (request.image() != null && !request.image().equals(source.image())) {
            throw ApiException.invalidField("image", "a computer made from a checkpoint runs the checkpoint's image, "
                    + source.image() + "; leave image out");
        }
        var env = request.env() == null ? source.env() : EnvValue.parse(request.env(), false);
        var ports = request.ports() == null ? source.ports() : ComputerInput.ports(request.ports());
        var resources = request.resources() == null ? new ComputerView.Resources(source.cpus(), source.memoryMb())
                : ComputerInput.resources(request.resources());
        Integer autoSleep = request.autoSleepSeconds() == null ? source.autoSleepSeconds()
                : ComputerInput.autoSleep(request.autoSleepSeconds(), null);
        Instant now = now();
        var computer = insert(new Computer(Ids.next(), workspace.id(), name, Computer.CREATING, null, source.image(),
                checkpoint.imageDigest(), env, ports, resources.cpus(), resources.memoryMb(),
                Boolean.TRUE.equals(request.protectedFlag()), autoSleep, 1, 1, null, source.id(), checkpoint.id(), null,
                now, now, null, null, null));
        return new Created(view(provision(computer.id(), true), workspace), Optional.empty());
    }

    /** Inserts with the lowest free network slot; a racing create that took it makes us try the next. */
    private Computer insert(Computer draft) {
        for (int attempt = 0; attempt < 20; attempt++) {
            try {
                return jdbi.inTransaction(h -> {
                    var slot = freeSlot(store.slotsInUse(h));
                    var c = draft.withSlot(slot);
                    store.insert(h, c);
                    return c;
                });
            } catch (JdbiException e) {
                if (!Constraints.isUniqueViolation(e)) {
                    throw e;
                }
                boolean nameTaken = jdbi.withHandle(h -> store.find(h, draft.workspace(), draft.name()))
                        .filter(c -> c.deletedAt() == null).isPresent();
                if (nameTaken) {
                    throw ApiException.conflict("a computer named " + draft.name() + " already exists in this workspace");
                }
            }
        }
        throw new ApiException(ErrorCode.CONFLICT, "could not find a free network slot; retry");
    }

    private static Slot freeSlot(Set<Integer> used) {
        for (int i = Slot.FIRST; i <= Slot.LAST; i++) {
            if (Slot.usable(i) && !used.contains(i)) {
                return new Slot(i);
            }
        }
        throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "every network slot is in use");
    }

    /** Pulls (or builds) the image and starts the computer; on failure it is marked failed with the reason. */
    Computer provision(String computerId) {
        return provision(computerId, false);
    }

    /** {@code fresh}: created just now, so no sandbox of it can exist and the runtime need not be asked. */
    private Computer provision(String computerId, boolean fresh) {
        return locked(computerId, () -> {
            var computer = jdbi.withHandle(h -> store.find(h, computerId)).orElseThrow();
            if (computer.deletedAt() != null) {
                return computer;
            }
            try {
                if (computer.fromCheckpoint() != null && computer.state().equals(Computer.CREATING)) {
                    return forkNow(computer);
                }
                var image = pulled(computer.workspace(), computer.image()).orElseGet(() -> pull(computer));
                return start(computer, image, fresh);
            } catch (Images.PullFailure e) {
                return fail(computer, "image_pull_failed", e.getMessage());
            } catch (RuntimeException e) {
                LOG.warn("computer {} did not start", computerId, e);
                return fail(computer, "start_failed", e.getMessage());
            }
        });
    }

    /**
     * Copies the checkpoint's /data and restores its image into this computer's first sandbox. The
     * source's gate is held shared, so the checkpoint cannot be deleted under the copy.
     */
    private Computer forkNow(Computer computer) {
        var checkpoint = checkpoints.find(computer.fromCheckpoint());
        var shared = gates.of(checkpoint.source()).lock().readLock();
        shared.lock();
        try {
            if (!checkpoint.is(CheckpointState.READY) || checkpoint.deletedAt() != null) {
                return fail(computer, "checkpoint_gone", "checkpoint " + checkpoint.name() + " was deleted before the "
                        + "computer was made from it");
            }
            runtime().state(computer.sandboxId()).ifPresent(s -> runtime().delete(computer.sandboxId()));
            Disk.deleteTree(dirs.computer(computer.id()));
            Files.createDirectories(dirs.computer(computer.id()));
            Dirs.copy(dirs.checkpointData(checkpoint.id()), dirs.data(computer.id()));
            ensureTools();
            restoreInto(computer, dirs.checkpointImage(checkpoint.id()));
        } catch (IOException | RuntimeException e) {
            LOG.warn("computer {} could not be made from checkpoint {}", computer.id(), checkpoint.id(), e);
            runtime().delete(computer.sandboxId());
            return fail(computer, "fork_failed", "could not restore checkpoint " + checkpoint.name() + ": "
                    + e.getMessage());
        } finally {
            shared.unlock();
        }
        Instant now = now();
        var ready = computer.with(Computer.READY, computer.imageDigest(), computer.generation(), null, now, now);
        save(ready);
        activity.restarted(computer.id(), now);
        return ready;
    }

    /** The image if this workspace pulled the reference already and it is unpacked here. */
    private Optional<Image> pulled(String workspace, String reference) {
        return jdbi.withHandle(h -> pulledImages.find(h, workspace, reference))
                .filter(i -> i.state().equals("ready") && i.digest() != null)
                .flatMap(i -> images.unpacked(reference, i.digest()));
    }

    /** Pulls for a computer and remembers the reference in the workspace's images. */
    private Image pull(Computer computer) {
        var image = images.resolve(computer.image());
        if (!Images.isLocal(computer.image())) {
            jdbi.useTransaction(h -> {
                var record = pulledImages.begin(h, new WorkspaceImage(Ids.next(),
                        computer.workspace(), computer.image(), "pulling", null, null, now(), null));
                pulledImages.finish(h, record.id(), "ready", image.digest(), null, now());
            });
        }
        return image;
    }

    /** Digests that must stay unpacked: those of live computers and of the workspaces' pulled images. */
    public Set<String> digestsInUse() {
        var keep = new HashSet<>(jdbi.withHandle(store::digestsInUse));
        keep.addAll(jdbi.withHandle(pulledImages::digests));
        keep.addAll(checkpoints.digestsInUse());
        return keep;
    }

    private Computer start(Computer computer, Image image, boolean fresh) {
        var runsc = runtime();
        var existing = fresh ? Optional.<String>empty() : runsc.state(computer.sandboxId());
        if (existing.filter("running"::equals).isPresent()) {
            // Never run an id twice: a second runsc run orphans the first sandbox. Adopt it instead.
            var adopted = computer.with(Computer.READY, image.digest(), computer.generation(), computer.error(), now(),
                    computer.lastStartedAt());
            jdbi.useTransaction(h -> store.update(h, adopted));
            return adopted;
        }
        if (existing.isPresent()) {
            runsc.delete(computer.sandboxId());
        }
        try {
            Path dir = Files.createDirectories(dirs.computer(computer.id()));
            Path data = Files.createDirectories(dir.resolve("data"));
            ensureTools();
            runsc.prepareNetwork(computer.slot());
            runsc.start(spec(computer, image, data), dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Instant now = now();
        var ready = computer.with(Computer.READY, image.digest(), computer.generation(), null, now, now);
        jdbi.useTransaction(h -> store.update(h, ready));
        return ready;
    }

    private SandboxSpec spec(Computer computer, Image image, Path data) {
        var command = image.config().command().isEmpty() ? IDLE_INIT : image.config().command();
        String cwd = image.config().workingDir().isEmpty() ? "/" : image.config().workingDir();
        return new SandboxSpec(computer.sandboxId(), computer.name(), image.rootfs(), command,
                environment(computer, image, Map.of()), cwd, data, toolsDir, computer.slot(),
                (long) computer.memoryMb() << 20, computer.cpus(), 1024);
    }

    Computer fail(Computer computer, String code, String message) {
        var failed = computer.with(Computer.FAILED, computer.imageDigest(), computer.generation(),
                new Operation.Error(code, message), now(), computer.lastStartedAt());
        jdbi.useTransaction(h -> store.update(h, failed));
        return failed;
    }

    private void ensureTools() throws IOException {
        Path busybox = toolsDir.resolve("busybox");
        if (!Files.exists(busybox)) {
            Files.createDirectories(toolsDir);
            Path tmp = toolsDir.resolve("busybox.tmp");
            Files.copy(Path.of("/bin/busybox"), tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, busybox, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /** The process environment: the image's, the computer's literals and secrets, then the call's. */
    private Map<String, String> environment(Computer computer, Image image, Map<String, String> extra) {
        var env = new LinkedHashMap<String, String>();
        for (String kv : image.config().env()) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                env.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        env.putIfAbsent("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        computer.env().forEach((name, value) -> {
            switch (value) {
                case EnvValue.Literal l -> env.put(name, l.value());
                case EnvValue.Secret s -> variables.valueOf(computer.workspace(), s.variable()).ifPresent(v -> env.put(name, v));
            }
        });
        env.putAll(extra);
        return env;
    }

    // ---- read

    public Page<ComputerView> list(Workspace workspace, PageRequest page) {
        var rows = jdbi.withHandle(h -> store.page(h, workspace.id(), page));
        return Page.of(rows, page.limit(), Computer::id).map(c -> view(c, workspace));
    }

    public ComputerView get(Workspace workspace, String ref) {
        return view(find(workspace, ref), workspace);
    }

    private Computer find(Workspace workspace, String ref) {
        return jdbi.withHandle(h -> store.find(h, workspace.id(), ref))
                .orElseThrow(() -> ApiException.notFound("computer " + ref));
    }

    // ---- update and delete

    public ComputerView update(Workspace workspace, String ref, UpdateComputer request) {
        var computer = find(workspace, ref);
        requireLive(computer);
        String name = request.name() == null ? computer.name() : Validate.dnsLabel("name", request.name());
        var env = new LinkedHashMap<>(computer.env());
        EnvValue.parse(request.env(), true).forEach((k, v) -> {
            if (v == null) {
                env.remove(k);
            } else {
                env.put(k, v);
            }
        });
        if (env.size() > EnvValue.MAX_VARIABLES) {
            throw ApiException.invalidField("env", "at most " + EnvValue.MAX_VARIABLES + " variables");
        }
        boolean protect = request.protectedFlag() == null ? computer.protectedFlag() : request.protectedFlag();
        Integer autoSleep = ComputerInput.autoSleep(request.autoSleepSeconds(), computer.autoSleepSeconds());
        var ports = request.ports() == null ? computer.ports() : ComputerInput.ports(request.ports());
        var updated = computer.withSettings(name, env, ports, protect, autoSleep, now());
        Constraints.unique(() -> jdbi.inTransaction(h -> {
            store.update(h, updated);
            return updated;
        }), () -> ApiException.conflict("a computer named " + name + " already exists in this workspace"));
        return view(updated, workspace);
    }

    /** Stops the sandbox and removes its network, overlay and /data. Refused while protected. */
    public ComputerView delete(Workspace workspace, String ref) {
        var computer = find(workspace, ref);
        if (computer.deletedAt() != null) {
            return view(computer, workspace);
        }
        if (computer.protectedFlag()) {
            throw new ApiException(ErrorCode.PROTECTED, "computer " + computer.name()
                    + " is protected; PATCH {\"protected\": false} first");
        }
        var deleted = lockedEndingExecs(computer.id(), () -> {
            var latest = current(computer.id());
            runtime.ifPresent(r -> {
                r.delete(latest.sandboxId());
                r.removeNetwork(latest.slot());
            });
            Disk.deleteTree(dirs.computer(computer.id()));
            checkpoints.deleteAllOf(computer.id());
            var gone = latest.deleted(now());
            save(gone);
            activity.forget(computer.id());
            return gone;
        });
        Thread.ofVirtual().start(() -> images.collectGarbage(digestsInUse()));
        return view(deleted, workspace);
    }

    // ---- sleep and wake

    /**
     * Puts a ready computer to sleep: waits up to {@link #SLEEP_WAIT} for it, else answers with
     * {@code pending: "sleeping"} and the {@code computer.sleep} operation. Asleep already: unchanged.
     */
    public Slept sleep(Workspace workspace, String ref) {
        runtime();
        var computer = find(workspace, ref);
        requireLive(computer);
        if (computer.state().equals(Computer.SLEEPING)) {
            return new Slept(view(computer, workspace), Optional.empty());
        }
        if (!computer.state().equals(Computer.READY)) {
            throw ApiException.conflict("computer " + computer.name() + " is " + computer.state() + "; only a ready "
                    + "computer can sleep");
        }
        save(current(computer.id()).withState(Computer.READY, Computer.PENDING_SLEEP, computer.error(), now()));
        var op = operations.begin(SLEEP_KIND, workspace.id(), computer.id(), Json.mapper().createObjectNode());
        var done = operations.await(op.id(), SLEEP_WAIT);
        var latest = current(computer.id());
        return switch (done.state()) {
            case RUNNING -> new Slept(view(latest, workspace), Optional.of(done));
            case SUCCEEDED -> new Slept(view(latest, workspace), Optional.empty());
            case FAILED -> throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "computer " + computer.name()
                    + " could not sleep: " + done.error().message());
        };
    }

    /** Checkpoints the sandbox's memory and overlay to disk and stops it; /data stays where it is. */
    Computer sleepNow(String computerId) {
        var runsc = runtime();
        return lockedEndingExecs(computerId, () -> {
            var computer = current(computerId);
            if (!computer.state().equals(Computer.READY) || computer.deletedAt() != null) {
                return computer;
            }
            runsc.endExecs(computer.sandboxId(), EXECS_END);
            Path image = dirs.sleepImage(computer.id());
            Disk.deleteTree(image);
            try {
                runsc.checkpoint(computer.sandboxId(), image, false);
                Dirs.markComplete(image);
            } catch (RuntimeException | IOException e) {
                Disk.deleteTree(image);
                save(computer.withState(Computer.READY, null, new Operation.Error("sleep_failed", e.getMessage()), now()));
                throw new Commands.Failure("the checkpoint for sleep failed: " + e.getMessage());
            }
            runsc.delete(computer.sandboxId());
            var asleep = computer.withState(Computer.SLEEPING, null, computer.error(), now());
            save(asleep);
            LOG.info("computer {} ({}) is asleep", computer.name(), computer.id());
            return asleep;
        });
    }

    public ComputerView wake(Workspace workspace, String ref) {
        var computer = find(workspace, ref);
        requireLive(computer);
        if (computer.state().equals(Computer.READY)) {
            return view(computer, workspace);
        }
        if (!computer.state().equals(Computer.SLEEPING)) {
            throw ApiException.conflict("computer " + computer.name() + " is " + computer.state() + ", not asleep");
        }
        return view(wakeNow(computer.id()), workspace);
    }

    /**
     * Restores a sleeping computer from its sleep image into a new sandbox. The new sandbox id is
     * stored before the restore, so a crash in between finds and adopts it.
     */
    Computer wakeNow(String computerId) {
        var runsc = runtime();
        return locked(computerId, () -> {
            var computer = current(computerId);
            if (!computer.state().equals(Computer.SLEEPING) || computer.deletedAt() != null) {
                return computer;
            }
            var next = computer.nextIncarnation(computer.generation(), now());
            save(next);
            try {
                restoreInto(next, dirs.sleepImage(next.id()));
            } catch (RuntimeException e) {
                runsc.delete(next.sandboxId());
                save(next.withState(Computer.SLEEPING, null, new Operation.Error("wake_failed", e.getMessage()), now()));
                throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "computer " + next.name() + " could not wake: "
                        + e.getMessage());
            }
            Instant now = now();
            var ready = next.with(Computer.READY, next.imageDigest(), next.generation(), null, now, now);
            save(ready);
            Disk.deleteTree(dirs.sleepImage(next.id()));
            activity.restarted(computerId, now);
            return ready;
        });
    }

    // ---- restore in place

    /**
     * Rolls the computer back to one of its checkpoints: its execs end, its sandbox (or sleep image)
     * is discarded, /data becomes the checkpoint's copy, and it runs from the checkpoint's memory and
     * overlay in a new sandbox. {@code generation} goes up by one. A failed computer may be restored.
     */
    public ComputerView restore(Workspace workspace, String ref, RestoreRequest request) {
        runtime();
        var computer = find(workspace, ref);
        requireLive(computer);
        var checkpoint = checkpoints.readyOf(computer.id(), Validate.required("checkpoint", request.checkpoint()));
        if (computer.state().equals(Computer.CREATING)) {
            throw ApiException.conflict("computer " + computer.name() + " is still being created");
        }
        return view(lockedEndingExecs(computer.id(), () -> restoreNow(computer.id(), checkpoint)), workspace);
    }

    private Computer restoreNow(String computerId, Checkpoint checkpoint) {
        var runsc = runtime();
        var computer = current(computerId);
        Path staged = dirs.computer(computerId).resolve("data.restoring");
        Path old = dirs.computer(computerId).resolve("data.old");
        try {
            // Copied before anything is stopped: a copy that fails (disk full) leaves the computer as it was.
            Disk.deleteTree(staged);
            Dirs.copy(dirs.checkpointData(checkpoint.id()), staged);
        } catch (RuntimeException e) {
            Disk.deleteTree(staged);
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "could not copy the checkpoint's /data: "
                    + e.getMessage());
        }
        runsc.delete(computer.sandboxId());
        Disk.deleteTree(dirs.sleepImage(computerId));
        // Pending while it runs: the supervisor leaves it alone, and a crash leaves it failed, not half-done.
        var next = computer.nextIncarnation(computer.generation() + 1, now())
                .withState(computer.state(), Computer.RESTORING, computer.error(), now());
        save(next);
        try {
            Disk.deleteTree(old);
            if (Files.exists(dirs.data(computerId))) {
                Files.move(dirs.data(computerId), old);
            }
            Files.move(staged, dirs.data(computerId));
            Disk.deleteTree(old);
            restoreInto(next, dirs.checkpointImage(checkpoint.id()));
        } catch (IOException | RuntimeException e) {
            LOG.warn("restoring computer {} from checkpoint {} failed", computerId, checkpoint.id(), e);
            runsc.delete(next.sandboxId());
            fail(next.withState(Computer.FAILED, null, null, now()), "restore_failed", "could not restore checkpoint " + checkpoint.name() + ": " + e.getMessage()
                    + "; restore again, or delete the computer");
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "computer " + next.name() + " could not be restored: "
                    + e.getMessage());
        }
        Instant now = now();
        var ready = next.withState(Computer.READY, null, null, now).with(Computer.READY, next.imageDigest(),
                next.generation(), null, now, now);
        save(ready);
        activity.restarted(computerId, now);
        LOG.info("computer {} ({}) restored from checkpoint {} (generation {})", next.name(), computerId,
                checkpoint.name(), next.generation());
        return ready;
    }

    /** Starts the computer's current incarnation from a checkpoint image, on its network slot. */
    private void restoreInto(Computer next, Path imageDir) {
        var image = onRuntime(() -> unpackedImage(next));
        runtime().prepareNetwork(next.slot());
        runtime().restore(spec(next, image, dirs.data(next.id())), dirs.computer(next.id()), imageDir);
    }

    private Image unpackedImage(Computer computer) {
        return images.unpacked(computer.image(), computer.imageDigest()).orElseThrow(() ->
                new Images.PullFailure("image " + computer.imageDigest() + " is no longer unpacked here"));
    }

    // ---- the router's side

    /** Where a router request goes: the computer and the port it publishes. */
    public record RouteTarget(Computer computer, Port port) {
        public String computerId() {
            return computer.id();
        }
    }

    /**
     * The computer and port a host label names in a workspace: {@code web} is computer web on its
     * port published on 80 (else its first port); {@code web-8080} is the port published on 8080.
     */
    public Optional<RouteTarget> routeFor(Workspace workspace, String label) {
        var exact = jdbi.withHandle(h -> store.find(h, workspace.id(), label)).filter(c -> c.deletedAt() == null);
        if (exact.isPresent()) {
            var c = exact.get();
            var port = c.ports().stream().filter(p -> p.published() == 80).findFirst().or(() -> c.ports().stream().findFirst());
            return port.map(p -> new RouteTarget(c, p));
        }
        var numbered = Pattern.compile("(.+)-(\\d{1,5})").matcher(label);
        if (!numbered.matches()) {
            return Optional.empty();
        }
        int published = Integer.parseInt(numbered.group(2));
        return jdbi.withHandle(h -> store.find(h, workspace.id(), numbered.group(1))).filter(c -> c.deletedAt() == null)
                .flatMap(c -> c.ports().stream().filter(p -> p.published() == published).findFirst()
                        .map(p -> new RouteTarget(c, p)));
    }

    /**
     * A router request begins: the computer is woken if asleep, counts as busy until {@link #leaveRoute}
     * (no auto-sleep under a request in flight) and as used. Answers its address inside its network.
     */
    public String enterRoute(RouteTarget target) {
        String computerId = target.computerId();
        activity.requestBegins(computerId);
        try {
            // routeFor has just read it: read again only to wake it (under its gate).
            var c = target.computer();
            if (c.state().equals(Computer.SLEEPING)) {
                c = wakeNow(computerId);
            }
            if (!c.state().equals(Computer.READY) || c.deletedAt() != null) {
                throw new ApiException(ErrorCode.BAD_GATEWAY, "computer " + c.name() + " is " + (c.deletedAt() != null
                        ? "deleted" : c.state()) + ", not ready");
            }
            used(computerId);
            return c.slot().sandboxAddress();
        } catch (RuntimeException e) {
            leaveRoute(computerId);
            throw e;
        }
    }

    public void leaveRoute(String computerId) {
        activity.requestEnds(computerId);
        used(computerId);
    }

    // ---- exec

    /** An exec checked and ready to run: run it for a JSON answer, or stream its output. */
    public final class PreparedExec {
        private final Computer computer;
        private final long changesAtRead;
        private final Exec.Request request;

        private PreparedExec(Computer computer, long changesAtRead, Exec.Request request) {
            this.computer = computer;
            this.changesAtRead = changesAtRead;
            this.request = request;
        }

        public ExecApi.Result run(BooleanSupplier callerPresent) {
            var result = awake(computer, changesAtRead, sandbox -> onRuntime(() -> runtime().exec(sandbox, request, scratch(),
                    OUTPUT_CAP, callerPresent)));
            return new ExecApi.Result(result.exitCode(), new String(result.stdout(), StandardCharsets.UTF_8),
                    new String(result.stderr(), StandardCharsets.UTF_8), result.timedOut(), result.truncated(),
                    result.durationMillis());
        }

        public Exec.Result stream(Exec.Sink sink, BooleanSupplier callerPresent) {
            return awake(computer, changesAtRead, sandbox -> onRuntime(() -> runtime().execStreaming(sandbox, request, scratch(),
                    sink, callerPresent)));
        }

        public Terminal terminal(int columns, int rows) {
            var terminal = awake(computer, changesAtRead, sandbox -> onRuntime(() -> runtime().execTerminal(sandbox, request,
                    scratch(), columns, rows)));
            used(computer.id());
            return terminal;
        }

        private Path scratch() {
            return dirs.computer(computer.id()).resolve("exec");
        }
    }

    /** Checks an exec (input, state, missing variables) and resolves its environment, before any output. */
    public PreparedExec prepareExec(Workspace workspace, String ref, ExecApi.Request request) {
        runtime();
        // Counted before the read; by name, 1 (odd) makes the exec read again under the gate.
        long changesAtRead = Ids.looksLikeId(ref) ? gates.changes(ref) : 1;
        var computer = find(workspace, ref);
        requireLive(computer);
        var command = Validate.required("command", request.command());
        if (command.isEmpty() || command.size() > 4096 || command.stream().anyMatch(a -> a == null)) {
            throw ApiException.invalidField("command", "an array of 1 to 4096 strings: argv[0] and its arguments");
        }
        var extra = ComputerInput.callEnv(request.env());
        String cwd = request.cwd();
        if (cwd != null && !cwd.startsWith("/")) {
            throw ApiException.invalidField("cwd", "must be an absolute path");
        }
        int timeout = Validate.range("timeout_seconds", request.timeoutSeconds(), 1, 3600, 60);
        if (!computer.state().equals(Computer.READY) && !computer.state().equals(Computer.SLEEPING)) {
            throw ApiException.conflict("computer " + computer.name() + " is " + computer.state() + ", not ready");
        }
        var secrets = secretNames(computer);
        var missing = secrets.isEmpty() ? Set.<String>of() : variables.missing(computer.workspace(), secrets);
        if (!missing.isEmpty()) {
            throw new ApiException(ErrorCode.VARIABLE_MISSING, "computer " + computer.name() + " references deleted "
                    + "variables " + String.join(", ", missing) + "; create them again or detach them with "
                    + "PATCH {\"env\": {NAME: null}}", Map.of("variables", List.copyOf(missing)));
        }
        var image = onRuntime(() -> unpackedImage(computer));
        String dir = cwd != null ? cwd : image.config().workingDir().isEmpty() ? "/" : image.config().workingDir();
        byte[] stdin = request.stdin() == null ? new byte[0] : request.stdin().getBytes(StandardCharsets.UTF_8);
        return new PreparedExec(computer, changesAtRead, new Exec.Request(command, environment(computer, image, extra), dir, stdin,
                Duration.ofSeconds(timeout)));
    }

    /**
     * Runs {@code work} on the computer's running sandbox with the gate held shared, so no sleep or
     * delete starts under it; a sleeping computer is woken first. Marks the computer used.
     */
    private <T> T awake(Computer read, long changesAtRead, Function<String, T> work) {
        String computerId = read.id();
        for (int attempt = 0; ; attempt++) {
            var gate = gates.of(computerId);
            var shared = gate.lock().readLock();
            shared.lock();
            try {
                boolean unchanged = attempt == 0 && changesAtRead % 2 == 0 && gate.changes().get() == changesAtRead;
                var c = unchanged ? read : current(computerId);
                if (c.state().equals(Computer.READY) && c.deletedAt() == null) {
                    used(computerId);
                    try {
                        return work.apply(c.sandboxId());
                    } finally {
                        used(computerId);
                    }
                }
                if (!c.state().equals(Computer.SLEEPING) || c.deletedAt() != null || attempt >= 3) {
                    throw ApiException.conflict("computer " + c.name() + " is " + (c.deletedAt() != null ? "deleted"
                            : c.state()) + ", not ready");
                }
            } finally {
                shared.unlock();
            }
            wakeNow(computerId);
        }
    }

    private void used(String computerId) {
        activity.used(computerId, now());
    }

    private static <T> T onRuntime(Supplier<T> call) {
        try {
            return call.get();
        } catch (Commands.Failure | Images.PullFailure e) {
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "the runtime could not run the command: " + e.getMessage());
        }
    }

    private static Set<String> secretNames(Computer computer) {
        var names = new HashSet<String>();
        computer.env().values().forEach(v -> {
            if (v instanceof EnvValue.Secret s) {
                names.add(s.variable());
            }
        });
        return names;
    }

    // ---- reconcile

    /** Makes what runs match the store after a start (see {@link Reconciler}). */
    public void reconcile() {
        runtime.ifPresent(r -> new Reconciler(this, jdbi, store, r, dirs, checkpoints, clock).run());
    }

    // ---- helpers

    private SandboxRuntime runtime() {
        return runtime.orElseThrow(() -> new ApiException(ErrorCode.RUNTIME_UNAVAILABLE,
                "computers are not available on this server: " + unavailable));
    }

    private static void requireLive(Computer computer) {
        if (computer.deletedAt() != null) {
            throw ApiException.conflict("computer " + computer.name() + " is deleted");
        }
    }

    private <T> T locked(String computerId, Supplier<T> work) {
        return gates.locked(computerId, work);
    }

    /** A change that ends the computer's execs first (sleep, delete, restore). */
    private <T> T lockedEndingExecs(String computerId, Supplier<T> work) {
        return gates.lockedEndingExecs(computerId, () -> {
            var c = current(computerId);
            runtime.ifPresent(r -> r.endExecs(c.sandboxId(), EXECS_END));
        }, work);
    }

    private Computer current(String computerId) {
        return jdbi.withHandle(h -> store.find(h, computerId)).orElseThrow();
    }

    void save(Computer c) {
        jdbi.useTransaction(h -> store.update(h, c));
    }

    ComputerView view(Computer c, Workspace workspace) {
        var missing = variables.missing(c.workspace(), secretNames(c));
        var envVars = new ArrayList<ComputerView.EnvVar>();
        c.env().forEach((name, v) -> envVars.add(switch (v) {
            case EnvValue.Literal l -> new ComputerView.EnvVar(name, "literal", false);
            case EnvValue.Secret s -> new ComputerView.EnvVar(name, "secret", missing.contains(s.variable()));
        }));
        String host = c.name() + "--" + workspace.name();
        String router = routerHost.get();
        var ports = c.ports().stream().map(p -> new ComputerView.PortView(p.published(), p.target(), p.protocol(),
                p.privateAccess(), "http://" + (p.published() == 80 ? host : c.name() + "-" + p.published() + "--"
                        + workspace.name()) + "." + router)).toList();
        return new ComputerView(c.id(), c.workspace(), c.name(), c.state(), c.pending(), c.image(), c.imageDigest(),
                ports, "http://" + host + "." + router, List.copyOf(c.env().keySet()), envVars,
                new ComputerView.Resources(c.cpus(), c.memoryMb()), c.generation(), c.protectedFlag(),
                c.autoSleepSeconds(), c.parent(),
                c.fromCheckpoint(), c.error(), c.createdAt(), c.updatedAt(), c.lastStartedAt(), c.lastActiveAt(),
                c.deletedAt());
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }

    private void createWork(OperationKind.Work work) throws OperationKind.Failure {
        work.progress("pulling and unpacking the image");
        var computer = provision(work.resource());
        if (computer.state().equals(Computer.FAILED)) {
            throw new OperationKind.Failure(computer.error().code(), computer.error().message());
        }
    }

    private void sleepWork(OperationKind.Work work) throws OperationKind.Failure {
        try {
            var c = sleepNow(work.resource());
            if (!c.state().equals(Computer.SLEEPING) && c.deletedAt() == null) {
                throw new OperationKind.Failure("not_asleep", "the computer is " + c.state() + ", not asleep");
            }
        } catch (Commands.Failure | ApiException e) {
            throw new OperationKind.Failure("sleep_failed", e.getMessage());
        }
    }
}
