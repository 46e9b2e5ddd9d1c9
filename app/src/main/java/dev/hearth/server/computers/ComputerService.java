package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Json;
import dev.hearth.api.Patch;
import dev.hearth.api.Validate;
import dev.hearth.api.computers.ComputerMetrics;
import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.ComputerView;
import dev.hearth.api.computers.CreateComputer;
import dev.hearth.api.computers.EnvValue;
import dev.hearth.api.computers.ExecRequest;
import dev.hearth.api.computers.Pending;
import dev.hearth.api.computers.RestoreComputer;
import dev.hearth.api.computers.Sample;
import dev.hearth.api.computers.UpdateComputer;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.fs.Disk;
import dev.hearth.server.checkpoints.CheckpointKinds;
import dev.hearth.server.images.ImageStore;
import dev.hearth.server.images.Images;
import dev.hearth.server.metrics.Timings;
import dev.hearth.server.network.ComputerNetwork;
import dev.hearth.server.network.NetworkInput;
import dev.hearth.server.network.NetworkPolicy;
import dev.hearth.server.nodes.Cargo;
import dev.hearth.server.nodes.LocalNode;
import dev.hearth.server.nodes.Shipments;
import dev.hearth.server.operations.Operation;
import dev.hearth.server.operations.OperationKind;
import dev.hearth.server.operations.Operations;
import dev.hearth.server.pool.PoolReport;
import dev.hearth.server.pool.PoolSettings;
import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.SandboxRuntime;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.variables.VariableService;
import dev.hearth.server.workspaces.Contents;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;

/**
 * The rules of computers as the API asks for them: each request checked (input, state, protection),
 * recorded, then handed to the {@link Lifecycle} (at once, or in an operation the client follows).
 * Changes to one computer are serialized by its gate; different computers proceed in parallel.
 */
public final class ComputerService {
    public static final String CREATE_KIND = "computer.create";
    public static final String SLEEP_KIND = "computer.sleep";
    // How long POST sleep waits before answering 202 with the operation (decisions.md).
    static final Duration SLEEP_WAIT = Duration.ofSeconds(10);

    /** A computer, and the operation to follow when the change is not done yet (a create that pulls, a slow sleep). */
    public record Outcome(ComputerView computer, Optional<Operation> operation) {
        public List<String> operationIds() {
            return operation.map(op -> List.of(op.id())).orElse(List.of());
        }
    }

    /** What the parts are made from: everything outside this package that computers use. */
    public record Inputs(Jdbi jdbi, ComputerStore store, VariableService variables, Images images, ImageStore imageStore,
                  Optional<SandboxRuntime> runtime, String unavailable, Optional<ComputerNetwork> network,
                  CheckpointKinds checkpointKinds, Path dataDir, Clock clock, Supplier<RouterAddress> routerHost,
                  Timings timings, SleepSettings sleep, PoolSettings pool, LocalNode node) {
    }

    private final ComputerParts parts;
    private final ComputerUsage usage;
    private final Operations operations;
    private final Optional<ComputerSupervisor> supervisor;
    private final ComputerArrivals arrivals;
    private final CheckpointCopies copies;
    private final Forks forks;
    private Optional<Departures> departures = Optional.empty();

    private final Timings timings;
    private final LocalNode node;
    private Thread lifetimes;
    private Thread sampling;
    private final MetricsHistory history;

    public ComputerService(Inputs inputs, Operations operations) {
        this.parts = ComputerParts.assemble(inputs);
        this.node = inputs.node();
        this.timings = inputs.timings();
        this.usage = parts.usage();
        this.history = new MetricsHistory(parts.records(), usage);
        this.operations = operations;
        // computer.create (pull and start) is repeatable, so resumed after a crash; computer.sleep is
        // not: reconcile settles a computer whose sleep was cut short.
        operations.register(OperationKind.of(CREATE_KIND, true, this::createWork));
        operations.register(OperationKind.of(SLEEP_KIND, false, this::sleepWork));
        this.supervisor = inputs.runtime().map(r -> new ComputerSupervisor(parts.lifecycle(), parts.sleeps(),
                new SleepDepth(inputs.sleep(), HostMemory::available), parts.records(), r,
                parts.activity(), parts.health(), new IdleFreezes(inputs.sleep().freezeIdleAfter(), parts),
                new PacketWatch(parts.dozes(), parts.gates())));
        supervisor.ifPresent(ComputerSupervisor::start);
        this.copies = new CheckpointCopies(parts, node);
        this.forks = new Forks(parts, node, copies);
        this.arrivals = new ComputerArrivals(parts, copies);
    }

    /** Makes what runs match the store after a start (see {@link Reconciler}), then fills the warm pool. */
    public void reconcile() {
        parts.access().ifPresent(r -> new Reconciler(parts.lifecycle(), parts.records(), r, parts.dirs(),
                parts.checkpoints(), parts.networking(), this::remove, this::pullUnlessUnderWay).run());
        arrivals.reconcile();
        departures.ifPresent(Departures::start);
        parts.pool().start();
        lifetimes = new Lifetimes(parts, this::deleteNow, this::beginSleep).start();
        if (parts.access().runtime().isPresent()) {
            sampling = history.start();
        }
    }

    /** Stops watching computers (they keep running, and the next start adopts them) and empties the warm pool. */
    public void close() {
        supervisor.ifPresent(ComputerSupervisor::stop);
        for (var loop : new Thread[] {lifetimes, sampling}) {
            if (loop != null) {
                loop.interrupt();
            }
        }
        departures.ifPresent(Departures::stop);
        parts.pool().stop();
    }

    /**
     * What this node takes in from a draining node ({@link ComputerArrivals}); from {@link #reconcile}
     * on, its own sleeping computers move to others through {@code shipments} while it drains.
     */
    public Cargo moves(Shipments shipments) {
        departures = parts.access().runtime().map(r -> new Departures(parts, node, shipments));
        copies.shipVia(shipments);
        return arrivals;
    }

    /** How many awake computers' agents do not answer now: {@code unresponsive_since} is set on them. */
    public int unresponsive() {
        return parts.health().unresponsive();
    }

    /** The warm pool's sandboxes, and why an image's pool is short, if it is. */
    public PoolReport pool() {
        return new PoolReport(parts.pool().sizes(), parts.pool().pooled(), parts.pool().problems());
    }

    // ---- create

    public Outcome create(Workspace workspace, CreateComputer request) {
        parts.access().get();
        if (request.fromCheckpoint() != null) {
            return fork(workspace, request);
        }
        String name = Validate.dnsLabel("name", request.name());
        String image = Validate.required("image", request.image());
        parts.images().invalid(image).ifPresent(problem -> {
            throw ApiException.invalidField("image", problem);
        });
        var resources = ComputerInput.resources(request.resources(), ComputerInput.DEFAULT_RESOURCES);
        var ports = ComputerInput.ports(request.ports());
        HostLabels.require("name", name, ports, workspace.name());
        var settings = new Computer.Settings(image, EnvValue.checked(request.env().apply(null, null, m -> m), false), ports, resources,
                Boolean.TRUE.equals(request.protectedFlag()), ComputerInput.autoSleep(request.autoSleepSeconds(), null),
                NetworkInput.parse(request.network(), NetworkPolicy.DEFAULT, parts.networking().settings()),
                LaunchInput.parse(request.entrypoint(), request.command(), request.restart(), Launch.IMAGE),
                Labels.of(request.labels()), lifetime(request.expiresAt(), request.onExpire(), Lifetime.NONE,
                        Boolean.TRUE.equals(request.protectedFlag())), !Boolean.FALSE.equals(request.freezeWhenIdle()));
        node.placeComputer(resources.memoryMb());
        var claimed = timings.timedIfPresent(Timings.Event.COMPUTER_CLAIM,
                () -> parts.pool().claim(workspace.id(), name, settings));
        if (claimed.isPresent()) {
            return new Outcome(view(claimed.get(), workspace), Optional.empty());
        }
        var computer = parts.records().insert(Computer.draft(Ids.next(), workspace.id(), name, settings, null,
                new Computer.Lineage(null, null), parts.records().now()));
        if (parts.lifecycle().canStartAtOnce(computer)) {
            return new Outcome(view(created(computer.id()), workspace), Optional.empty());
        }
        var op = operations.begin(CREATE_KIND, workspace.id(), computer.id(), Json.mapper().createObjectNode());
        return new Outcome(view(computer, workspace), Optional.of(op));
    }

    private Outcome fork(Workspace workspace, CreateComputer request) {
        return new Outcome(view(forks.fork(workspace, request, this::created), workspace), Optional.empty());
    }

    /** Boots a computer made just now, timed for /metrics. */
    private Computer created(String computerId) {
        return timings.timed(Timings.Event.COMPUTER_CREATE, () -> parts.lifecycle().provision(computerId, true));
    }

    // ---- read

    public Page<ComputerView> list(Workspace workspace, PageRequest page, ComputerFilter filter) {
        var rows = parts.records().jdbi().withHandle(h -> parts.records().store().page(h, workspace.id(), page, filter));
        return Page.of(rows, page.limit(), Computer::id).map(c -> view(c, workspace));
    }

    public ComputerView get(Workspace workspace, String ref) {
        return view(parts.records().find(workspace, ref), workspace);
    }

    /** Returns when this node runs the computer (a terminal is opened where it runs); 421 with its node otherwise. */
    public void requireHere(Workspace workspace, String ref) {
        live(workspace, ref);
    }

    public ComputerMetrics metrics(Workspace workspace, String ref) {
        return usage.of(live(workspace, ref));
    }

    /** The samples of the last hour (every 5 s while it was awake) between {@code since} and {@code until}. */
    public List<Sample> metricsHistory(Workspace workspace, String ref, Instant since, Instant until) {
        return history.of(live(workspace, ref).id(), since, until);
    }

    // ---- update and delete

    public ComputerView update(Workspace workspace, String ref, UpdateComputer request) {
        var computer = live(workspace, ref);
        var set = computer.settings();
        String name = request.name() == null ? computer.name() : Validate.dnsLabel("name", request.name());
        var env = new LinkedHashMap<>(set.env());
        EnvValue.checked(request.env(), true).forEach((k, v) -> {
            if (v == null) {
                env.remove(k);
            } else {
                env.put(k, v);
            }
        });
        if (env.size() > EnvValue.MAX_VARIABLES) {
            throw ApiException.invalidField("env", "at most " + EnvValue.MAX_VARIABLES + " variables");
        }
        var ports = request.ports() == null ? set.ports() : ComputerInput.ports(request.ports());
        HostLabels.require(request.name() == null ? "ports" : "name", name, ports, workspace.name());
        boolean protect = request.protectedFlag() == null ? set.protectedFlag() : request.protectedFlag();
        var settings = new Computer.Settings(set.image(), env, ports,
                ComputerInput.patched(request.resources(), set.resources()), protect,
                ComputerInput.autoSleep(request.autoSleepSeconds(), set.autoSleepSeconds()),
                NetworkInput.parse(request.network(), set.network(), parts.networking().settings()),
                LaunchInput.parse(request.entrypoint(), request.command(), request.restart(), set.launch()),
                Labels.patched(request.labels(), set.labels()),
                lifetime(request.expiresAt(), request.onExpire(), set.lifetime(), protect),
                request.freezeWhenIdle() == null ? set.freezeWhenIdle() : request.freezeWhenIdle());
        var updated = parts.records().update(computer.withSettings(name, settings, parts.records().now()));
        if (!settings.freezeWhenIdle()) {
            parts.gates().thaw(updated.id());
        }
        if (!settings.network().equals(set.network())) {
            // Applied at once, running or asleep: the rules are the veth's, not the sandbox's.
            parts.networking().attach(updated);
        }
        return view(updated, workspace);
    }

    private Lifetime lifetime(Patch<String> expiresAt, String onExpire, Lifetime current, boolean protect) {
        return Lifetime.parse(expiresAt, onExpire, current, protect, parts.records().now());
    }

    /** Stops the sandbox and removes its network, overlay and /data. Refused while protected. */
    public ComputerView delete(Workspace workspace, String ref) {
        var computer = parts.records().findHere(workspace, ref);
        if (computer.deleted()) {
            return view(computer, workspace);
        }
        if (computer.settings().protectedFlag()) {
            throw new ApiException(ErrorCode.PROTECTED, "computer " + computer.name()
                    + " is protected; PATCH {\"protected\": false} first");
        }
        return view(deleteNow(computer), workspace);
    }

    private Computer deleteNow(Computer computer) {
        var deleted = parts.lifecycle().lockedEndingExecs(computer.id(), () -> {
            var latest = parts.records().current(computer.id());
            return remove(parts.records().save(latest.withStatus(latest.state(), Pending.DELETING, latest.error(),
                    parts.records().now())));
        });
        parts.images().collectGarbageLater();
        return deleted;
    }

    private void pullUnlessUnderWay(Computer creating) {
        if (!operations.runningFor(creating.id())) {
            operations.begin(CREATE_KIND, creating.workspace(), creating.id(), Json.mapper().createObjectNode());
        }
    }

    /** Removes what a computer marked {@link Pending#DELETING} has: its sandbox, network, files, checkpoints. */
    private Computer remove(Computer deleting) {
        parts.access().ifPresent(r -> {
            r.delete(deleting.sandboxId());
            parts.lifecycle().removed(deleting);
            parts.networking().detach(deleting);
            r.removeNetwork(deleting.slot());
            r.removeDisk(parts.dirs().computer(deleting.id()), parts.dirs().disk(deleting.id()));
        });
        Disk.deleteTree(parts.dirs().computer(deleting.id()));
        parts.checkpoints().deleteAllOf(deleting.id());
        var gone = parts.records().save(deleting.deleted(parts.records().now()));
        parts.activity().forget(deleting.id());
        return gone;
    }

    // ---- sleep, wake and restore

    /**
     * Puts a ready computer to sleep: waits up to {@link #SLEEP_WAIT} for it, else answers with
     * {@code pending: "sleeping"} and the {@code computer.sleep} operation. Asleep already: unchanged.
     */
    public Outcome sleep(Workspace workspace, String ref) {
        parts.access().get();
        var computer = live(workspace, ref);
        if (computer.is(ComputerState.SLEEPING)) {
            return new Outcome(view(computer, workspace), Optional.empty());
        }
        if (!computer.allows(Move.SLEEP)) {
            throw ApiException.conflict("computer " + computer.name() + " is " + computer.state() + "; only a ready "
                    + "computer can sleep");
        }
        var op = beginSleep(computer);
        var done = operations.await(op.id(), SLEEP_WAIT);
        var after = parts.records().current(computer.id());
        return switch (done.state()) {
            case RUNNING -> new Outcome(view(after, workspace), Optional.of(done));
            case SUCCEEDED -> new Outcome(view(after, workspace), Optional.empty());
            case FAILED -> throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "computer " + computer.name()
                    + " could not sleep: " + done.error().message());
        };
    }

    private Operation beginSleep(Computer computer) {
        var latest = parts.records().current(computer.id());
        parts.records().save(latest.withStatus(ComputerState.READY, Pending.SLEEPING, computer.error(),
                parts.records().now()));
        return operations.begin(SLEEP_KIND, computer.workspace(), computer.id(), Json.mapper().createObjectNode());
    }

    public ComputerView wake(Workspace workspace, String ref) {
        var computer = live(workspace, ref);
        if (computer.is(ComputerState.READY)) {
            return view(computer, workspace);
        }
        if (!computer.allows(Move.WAKE)) {
            throw ApiException.conflict("computer " + computer.name() + " is " + computer.state() + ", not asleep");
        }
        return view(parts.sleeps().wakeNow(computer.id()), workspace);
    }

    /**
     * Rolls the computer back to one of its checkpoints: its execs end, and it runs from the
     * checkpoint in a new sandbox, {@code generation} one up. A failed computer may be restored.
     */
    public ComputerView restore(Workspace workspace, String ref, RestoreComputer request) {
        parts.access().get();
        var computer = live(workspace, ref);
        var checkpoint = parts.checkpoints().readyOf(computer.id(), Validate.required("checkpoint", request.checkpoint()));
        if (!computer.allows(Move.RESTORE)) {
            throw ApiException.conflict("computer " + computer.name() + " is still being created");
        }
        return view(parts.lifecycle().lockedEndingExecs(computer.id(),
                () -> parts.restores().restore(computer.id(), checkpoint)), workspace);
    }

    // ---- what other parts need

    /** Checks an exec and resolves its environment (see {@link Execs}). */
    public Execs.PreparedExec prepareExec(Workspace workspace, String ref, ExecRequest request) {
        return parts.execs().prepare(workspace, ref, request);
    }

    public ComputerFiles files() {
        return parts.files();
    }

    public ComputerProcesses processes() {
        return parts.processes();
    }

    ComputerCheckpoints checkpoints() {
        return parts.checkpoints();
    }

    /** Restarts after a main process exited, by computer name, since this server started. */
    public Map<String, Integer> restarts() {
        return parts.lifecycle().restarts();
    }

    /** Computers by address, for the resolver and the waker (see {@link ComputerAddresses}). */
    public ComputerAddresses addresses() {
        return new ComputerAddresses(parts.records(), parts.sleeps(), parts.gates());
    }

    /** The computer router's side (see {@link RouteTargets}). */
    public RouteTargets routes() {
        return parts.routes();
    }

    public Contents contents() {
        return HostLabels.contents(parts.records().store());
    }

    /** Digests that must stay unpacked (see {@link ComputerImages#digestsInUse}). */
    public Set<String> digestsInUse() {
        return parts.images().digestsInUse();
    }

    private Computer live(Workspace workspace, String ref) {
        var computer = parts.records().findHere(workspace, ref);
        if (computer.deleted()) {
            throw ApiException.conflict("computer " + computer.name() + " is deleted");
        }
        return computer;
    }

    private ComputerView view(Computer c, Workspace workspace) {
        return parts.views().of(c, workspace);
    }

    private void createWork(OperationKind.Work work) throws OperationKind.Failure {
        work.progress("pulling and unpacking the image");
        var computer = timings.timed(Timings.Event.COMPUTER_CREATE, () -> parts.lifecycle().provision(work.resource()));
        if (computer.is(ComputerState.FAILED)) {
            throw new OperationKind.Failure(computer.error().code(), computer.error().message());
        }
    }

    private void sleepWork(OperationKind.Work work) throws OperationKind.Failure {
        try {
            var c = parts.sleeps().sleepNow(work.resource());
            if (!c.is(ComputerState.SLEEPING) && !c.deleted()) {
                throw new OperationKind.Failure("not_asleep", "the computer is " + c.state() + ", not asleep");
            }
        } catch (Commands.Failure | ApiException e) {
            throw new OperationKind.Failure("sleep_failed", e.getMessage());
        }
    }
}
