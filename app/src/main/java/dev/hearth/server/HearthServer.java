package dev.hearth.server;

import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.databases.DatabaseState;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.access.AccessApi;
import dev.hearth.server.auth.Authenticator;
import dev.hearth.server.checkpoints.CheckpointKinds;
import dev.hearth.server.checkpoints.CheckpointStore;
import dev.hearth.server.computers.CheckpointsApi;
import dev.hearth.server.computers.ComputerService;
import dev.hearth.server.computers.ComputerStore;
import dev.hearth.server.computers.ComputersApi;
import dev.hearth.server.computers.FilesApi;
import dev.hearth.server.computers.ProcessesApi;
import dev.hearth.server.computers.RouterAddress;
import dev.hearth.server.crypto.Keyring;
import dev.hearth.server.databases.DatabaseCheckpoints;
import dev.hearth.server.databases.DatabaseEngine;
import dev.hearth.server.databases.DatabaseService;
import dev.hearth.server.databases.DatabaseStore;
import dev.hearth.server.databases.DatabasesApi;
import dev.hearth.server.disks.Blocks;
import dev.hearth.server.disks.Volume;
import dev.hearth.server.e2b.E2b;
import dev.hearth.server.e2b.E2bSettings;
import dev.hearth.server.http.Idempotency;
import dev.hearth.server.http.IdempotencyStore;
import dev.hearth.server.http.RequestObserver;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.images.ImageService;
import dev.hearth.server.images.ImageStore;
import dev.hearth.server.images.Images;
import dev.hearth.server.images.ImagesApi;
import dev.hearth.server.invitations.InvitationMail;
import dev.hearth.server.invitations.InvitationService;
import dev.hearth.server.invitations.InvitationStore;
import dev.hearth.server.invitations.InvitationsApi;
import dev.hearth.server.limits.DiskReserve;
import dev.hearth.server.limits.RateLimits;
import dev.hearth.server.mail.Mailer;
import dev.hearth.server.mail.OutboxMailer;
import dev.hearth.server.mail.SmtpMailer;
import dev.hearth.server.metrics.MetricsHandler;
import dev.hearth.server.metrics.ServerMetrics;
import dev.hearth.server.metrics.Timings;
import dev.hearth.server.network.ComputerNetwork;
import dev.hearth.server.network.DirectPorts;
import dev.hearth.server.network.Services;
import dev.hearth.server.nodes.Arrivals;
import dev.hearth.server.nodes.LocalNode;
import dev.hearth.server.nodes.NodeKey;
import dev.hearth.server.nodes.NodeLease;
import dev.hearth.server.nodes.NodeRelay;
import dev.hearth.server.nodes.NodesApi;
import dev.hearth.server.nodes.Shipments;
import dev.hearth.server.openapi.OpenApiRoute;
import dev.hearth.server.operations.OperationStore;
import dev.hearth.server.operations.Operations;
import dev.hearth.server.operations.OperationsApi;
import dev.hearth.server.pool.PoolReport;
import dev.hearth.server.process.Subreaper;
import dev.hearth.server.queries.SavedQueriesApi;
import dev.hearth.server.router.OtherNodes;
import dev.hearth.server.sandbox.SandboxRuntime;
import dev.hearth.server.sandbox.runsc.RunscRuntime;
import dev.hearth.server.sandbox.runsc.TaskRoom;
import dev.hearth.server.store.Store;
import dev.hearth.server.teardown.Leftovers;
import dev.hearth.server.variables.SharedKeys;
import dev.hearth.server.variables.VariableService;
import dev.hearth.server.variables.VariableStore;
import dev.hearth.server.variables.VariablesApi;
import dev.hearth.server.workspaces.Contents;
import dev.hearth.server.workspaces.WorkspaceService;
import dev.hearth.server.workspaces.WorkspacesApi;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root of {@code hearth serve}: builds every part with {@code new}, one feature per
 * method, each registering its routes, then starts the listeners and reconciles what runs.
 */
public final class HearthServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HearthServer.class);
    public static final String VERSION = "0.1.0";

    /** Databases and their checkpoints (reconciled on start, after the clusters). */
    private record Databases(DatabaseService service, DatabaseCheckpoints checkpoints) {
    }

    private final Listeners listeners;
    private final Store store;
    private final NodeLease nodeLease;
    private final RouteTable routes = new RouteTable();
    private final Operations operations;
    private final Optional<ComputerNetwork> network;
    private final VariableService variables;
    private final ComputerService computers;
    private final DatabaseService databases;
    private final DatabaseCheckpoints databaseCheckpoints;
    private final Idempotency idempotency;
    private final InvitationMail invitationMail;
    private final Optional<Path> adminKeyFile;
    private final Optional<ServerMetrics> metrics;
    private final NodeRelay relay;
    private final E2b e2b;
    private final ScheduledExecutorService maintenance =
            Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("maintenance").factory());

    private HearthServer(Config config) throws Exception {
        Files.createDirectories(config.dataDir());
        Files.setPosixFilePermissions(config.dataDir(), PosixFilePermissions.fromString("rwx------"));
        listeners = Listeners.open(config);
        store = Store.open(config.store(), config.dataDir());
        var jdbi = store.jdbi();
        nodeLease = takeNode(config, jdbi);
        var node = nodeLease.local();
        // Only now is the data directory surely ours: a frozen disk in it is one a dead process left.
        Blocks.thawAll(config.dataDir()).forEach(d -> LOG.warn("{} was left frozen by a copy cut short; thawed", d));
        operations = new Operations(jdbi, new OperationStore(node.name()), config.clock(), config.operationLease(),
                config.operationKinds());
        metrics = config.metricsListen().map(address -> new ServerMetrics(jdbi, node.name(), store::poolStats,
                Arrays.stream(ComputerState.values()).map(ComputerState::wire).toList(),
                Arrays.stream(DatabaseState.values()).map(DatabaseState::wire).toList(),
                Map.of("disks", config.dataDir().resolve("disks"), "databases", config.dataDir().resolve("databases"))));
        var ground = new Ground(config, jdbi, config.clock(), listeners.baseUrl(),
                new Keyring(config.encryptionKeyFile(), new SharedKeys(jdbi)), mailer(config), operations,
                new CheckpointKinds(jdbi, new CheckpointStore(), operations), routes, new RateLimits(config.limits()),
                metrics.<Timings>map(m -> m).orElse(Timings.NONE), node);
        HealthRoute.register(routes, VERSION, jdbi);
        OperationsApi.register(routes, operations, new OperationStore(node.name()));
        OpenApiRoute.register(routes, VERSION);
        NodesApi.register(routes, node);
        idempotency = new Idempotency(jdbi, new IdempotencyStore(), config.clock(), config.idempotency());
        var identity = Identity.wire(ground);
        network = network(config, node);
        variables = variables(ground);
        computers = computers(ground);
        var databaseSide = databases(ground);
        databases = databaseSide.service();
        databaseCheckpoints = databaseSide.checkpoints();
        workspaces(ground, identity);
        invitationMail = invitations(ground, identity);
        adminKeyFile = AdminKey.write(config.dataDir(), identity.access().bootstrapAdmin());
        var nodeKey = NodeKey.of(jdbi);
        var e2bSettings = new E2bSettings(config.router().domain(), listeners.routerAddress().host(),
                config.e2bTemplates());
        e2b = new E2b(new E2b.Ground(e2bSettings, jdbi, identity.authenticator(), nodeKey, listeners.loopbackBaseUrl(),
                computers.routes(), config.dataDir(), config.clock()));
        if (metrics.isPresent()) {
            metrics.get().gauge("hearth_computers_unresponsive", "Awake computers whose agent does not answer"
                    + " (unresponsive_since is set on them)", computers::unresponsive);
            listeners.serveMetrics(config.metricsListen().get(), new MetricsHandler(metrics.get(), node::all));
        }
        relay = new NodeRelay(nodeKey, identity.authenticator()::vouched, Authenticator::vouchable,
                listeners.nodeScheme(false), config.clock());
        listeners.serveApi(routes, identity.guard(), idempotency, ground.rates(),
                new DiskReserve(config.dataDir(), config.limits().reserveMb()), config.maxBodyBytes(),
                metrics.<RequestObserver>map(m -> m).orElse(RequestObserver.NONE).and(config.observer()),
                relay, arrivals(config, node.name(), nodeKey), e2b.api());
        listeners.serveRouter(computers.routes(), name -> jdbi.withHandle(h -> identity.workspaceStore().findLive(h,
                name)), identity.guard(), config.router(),
                new OtherNodes(node::routerOf, nodeKey, listeners.nodeScheme(true), config.clock()), e2b.hosts());
        // Listening already, so that clients see 503 starting rather than a refused connection (and those
        // of databases wait for theirs); served once what runs matches the store, so that nothing made
        // meanwhile is swept away as a leftover.
        databases.listenEarly();
        listeners.start();
        reconcile(config);
        listeners.ready();
        maintenance.scheduleWithFixedDelay(() -> maintain(ground, identity), 1, 60, TimeUnit.MINUTES);
        LOG.info("hearth {} serving {} (store: {})", VERSION, listeners.baseUrl(),
                store.dialect().name().toLowerCase());
    }

    /** The door other nodes send this one computers and databases through, and how this one sends its own. */
    private Arrivals arrivals(Config config, String node, NodeKey key) {
        var shipments = new Shipments(key, node, listeners.nodeScheme(false), config.clock());
        return new Arrivals(key, computers.moves(shipments), databases.moves(shipments), config.clock());
    }

    /** This process's node; refused (and what was opened closed) while another process holds it. */
    private NodeLease takeNode(Config config, Jdbi jdbi) throws Exception {
        try {
            String address = config.nodes().address().orElseGet(listeners::apiAddress);
            return NodeLease.take(jdbi, config.nodes(), address, listeners.routerNodeAddress(address),
                    config.databases().nodeAddress(address), listeners.baseUrl(), config.dataDir());
        } catch (IOException | RuntimeException e) {
            store.close();
            listeners.close();
            throw e;
        }
    }

    public static HearthServer start(Config config) throws Exception {
        return new HearthServer(config);
    }

    /**
     * Computers' networking, where computers can run (root, runsc): the resolver and the waker ask
     * computers and databases, built after this, only once queries and connections arrive.
     */
    private Optional<ComputerNetwork> network(Config config, LocalNode node) throws IOException {
        if (RunscRuntime.unavailableReason("runsc").isPresent()) {
            return Optional.empty();
        }
        Leftovers.sweep(config.dataDir());
        var directory = new NetworkDirectory(() -> computers, () -> databases, node);
        return Optional.of(ComputerNetwork.start(config.dataDir(), config.network(), directory,
                (asker, target) -> computers.addresses().wakeFor(asker, target),
                NetworkDirectory.host(config.nodes().address().orElseGet(listeners::apiAddress))));
    }

    private VariableService variables(Ground g) {
        var store = new VariableStore();
        var service = new VariableService(g.jdbi(), store, g.keyring(), g.clock());
        VariablesApi.register(g.routes(), service, store);
        SavedQueriesApi.register(g.routes(), g.jdbi(), g.clock());
        return service;
    }

    private ComputerService computers(Ground g) throws IOException {
        Path dataDir = g.config().dataDir().toAbsolutePath();
        var unavailable = RunscRuntime.unavailableReason("runsc");
        Optional<SandboxRuntime> runtime = Optional.empty();
        if (unavailable.isEmpty()) {
            Subreaper.start();
            TaskRoom.ensure();
            // Computers' disks and their checkpoints' copies: one volume, so that copies share blocks.
            var disks = Volume.ensure(dataDir.resolve("disks"), dataDir.resolve("disks.xfs"));
            runtime = Optional.of(new RunscRuntime("runsc", Files.createDirectories(dataDir.resolve("runsc")),
                    disks.shares(), g.config().runscPlatform()));
        } else {
            LOG.warn("computers are unavailable: {}", unavailable.get());
        }
        var store = new ComputerStore(g.node().name());
        var imageStore = new ImageStore();
        var images = new Images(Files.createDirectories(dataDir.resolve("images")), localImages(g.config()));
        var service = new ComputerService(new ComputerService.Inputs(g.jdbi(), store, variables, images, imageStore,
                runtime, unavailable.orElse(""), network, g.checkpointKinds(), dataDir, g.clock(),
                listeners::routerAddress, g.timings(), g.config().sleep(), g.config().pool(), g.node()), g.operations());
        ComputersApi.register(g.routes(), service, store);
        CheckpointsApi.register(g.routes(), service, store);
        FilesApi.register(g.routes(), service.files(), store);
        ProcessesApi.register(g.routes(), service.processes(), store);
        ImagesApi.register(g.routes(), new ImageService(g.jdbi(), imageStore, images, g.operations(), g.clock(),
                service::digestsInUse));
        return service;
    }

    /**
     * The directories local images may lie under: the operator's, and the layouts of E2B's templates
     * (an operator who names one there allows it).
     */
    private static List<Path> localImages(Config config) {
        var dirs = new java.util.ArrayList<>(config.localImages());
        for (String image : config.e2bTemplates().values()) {
            var local = java.util.regex.Pattern.compile("(oci|oci-archive|docker-archive):(/[^:]+)(:.*)?").matcher(image);
            if (local.matches()) {
                dirs.add(Path.of(local.group(2)));
            }
        }
        return dirs;
    }

    private Databases databases(Ground g) {
        var settings = g.config().databases();
        var store = new DatabaseStore(settings.publicHost(), g.node().name());
        var direct = DirectPorts.start(g.config().dataDir());
        String nodeAddress = settings.nodeAddress(g.config().nodes().address().orElseGet(listeners::apiAddress));
        var engine = DatabaseEngine.open(settings, g.config().dataDir(), g.jdbi(), store,
                network.isPresent() ? List.of(Services.ADDRESS.host()) : List.of(), direct.isPresent(),
                new DatabaseEngine.Sharing(g.keyring(), nodeAddress, this.store.dialect() != Store.Dialect.SQLITE));
        var service = new DatabaseService(g.jdbi(), store, g.checkpointKinds().store(), g.keyring(), engine, settings,
                g.clock(), network.map(ComputerNetwork::firewall), direct, g.timings(), g.node());
        var checkpoints = new DatabaseCheckpoints(g.jdbi(), g.checkpointKinds(), service, g.clock());
        DatabasesApi.register(g.routes(), service, checkpoints, store);
        return new Databases(service, checkpoints);
    }

    private void workspaces(Ground g, Identity identity) {
        var service = new WorkspaceService(g.jdbi(), identity.workspaceStore(), identity.access()::founded,
                List.of(variables.contents(), computers.contents(), databases.contents(),
                        new Contents("kept checkpoints", new CheckpointStore()::countKept)), g.clock());
        WorkspacesApi.register(g.routes(), service);
        AccessApi.register(g.routes(), identity.access(), service);
    }

    private InvitationMail invitations(Ground g, Identity identity) {
        var config = g.config();
        var store = new InvitationStore();
        var mail = new InvitationMail(g.jdbi(), store, g.mailer(), g.clock(), config.mailRetry(), g.baseUrl(),
                id -> g.jdbi().withHandle(h -> identity.workspaceStore().findLive(h, id)).map(Workspace::name)
                        .orElse(id));
        InvitationsApi.register(g.routes(), new InvitationService(g.jdbi(), store, identity.accessStore(), mail,
                g.clock(), config.invitationLifetime(), g.rates()), store);
        return mail;
    }

    /** After the listeners start: what runs is made to match the store, and background work resumes. */
    private void reconcile(Config config) {
        computers.reconcile();
        databases.start();
        DatabaseEngine.closeDataDir(config.dataDir());
        databaseCheckpoints.reconcile();
        operations.start(store.dialect() == Store.Dialect.SQLITE);
        invitationMail.start();
    }

    private static Mailer mailer(Config config) {
        return config.smtp().<Mailer>map(SmtpMailer::new)
                .orElseGet(() -> new OutboxMailer(config.dataDir().resolve("outbox")));
    }

    private void maintain(Ground g, Identity identity) {
        try {
            idempotency.purge();
            g.jdbi().useTransaction(h -> identity.authStore().purge(h, g.clock().instant()));
            identity.console().purge(g.clock().instant());
            identity.signingKeys().rotateIfDue();
        } catch (RuntimeException e) {
            LOG.warn("maintenance failed; will retry in an hour", e);
        }
    }

    public String baseUrl() {
        return listeners.baseUrl();
    }

    /** This node's own {@code /v1} on this host, whatever the public URL names (a cluster's, a proxy's). */
    public String localBaseUrl() {
        return listeners.loopbackBaseUrl();
    }

    /** The router's scheme and {@code domain:port}, as computers' URLs name them. */
    public RouterAddress routerAddress() {
        return listeners.routerAddress();
    }

    public RouteTable routes() {
        return routes;
    }

    /** The admin key file written on this start, if the store was empty. */
    public Optional<Path> adminKeyFile() {
        return adminKeyFile;
    }

    /** Variables, for features that resolve references to them (computers' environments). */
    public VariableService variables() {
        return variables;
    }

    /** The warm pool now (for tests and embedders; operators read it with hearth admin pool). */
    public PoolReport pool() {
        return computers.pool();
    }

    /** Restarts of computers whose main process exited, by computer name, since this server started. */
    public Map<String, Integer> computerRestarts() {
        return computers.restarts();
    }

    /** The operation executor, for work that features start. */
    public Operations operations() {
        return operations;
    }

    public void join() throws InterruptedException {
        listeners.join();
    }

    @Override
    public void close() throws Exception {
        maintenance.shutdownNow();
        listeners.close();
        relay.close();
        e2b.close();
        network.ifPresent(ComputerNetwork::close);
        computers.close();
        databases.close();
        invitationMail.close();
        operations.close();
        metrics.ifPresent(ServerMetrics::close);
        nodeLease.close();
        store.close();
    }
}
