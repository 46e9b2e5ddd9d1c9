package dev.hearth.server;

import dev.hearth.api.Json;
import dev.hearth.fs.Disk;
import dev.hearth.server.access.AccessApi;
import dev.hearth.server.access.AccessService;
import dev.hearth.server.access.AccessStore;
import dev.hearth.server.access.Authorizer;
import dev.hearth.server.access.KeyFile;
import dev.hearth.server.access.PrincipalStore;
import dev.hearth.server.auth.AccessTokens;
import dev.hearth.server.auth.AuthApi;
import dev.hearth.server.auth.AuthStore;
import dev.hearth.server.auth.Authenticator;
import dev.hearth.server.auth.EmailLogin;
import dev.hearth.server.auth.RequestGuard;
import dev.hearth.server.auth.SigningKeys;
import dev.hearth.server.auth.TokenGrant;
import dev.hearth.server.checkpoints.CheckpointKinds;
import dev.hearth.server.checkpoints.CheckpointStore;
import dev.hearth.server.computers.CheckpointsApi;
import dev.hearth.server.computers.ComputerService;
import dev.hearth.server.computers.ComputerStore;
import dev.hearth.server.computers.ComputersApi;
import dev.hearth.server.crypto.Keyring;
import dev.hearth.server.databases.DatabaseCheckpoints;
import dev.hearth.server.databases.DatabaseEngine;
import dev.hearth.server.databases.DatabaseService;
import dev.hearth.server.databases.DatabaseStore;
import dev.hearth.server.databases.DatabasesApi;
import dev.hearth.server.http.ApiHandler;
import dev.hearth.server.http.Idempotency;
import dev.hearth.server.http.IdempotencyStore;
import dev.hearth.server.http.JsonErrorHandler;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import dev.hearth.server.images.ImageService;
import dev.hearth.server.images.ImageStore;
import dev.hearth.server.images.Images;
import dev.hearth.server.images.ImagesApi;
import dev.hearth.server.invitations.InvitationMail;
import dev.hearth.server.invitations.InvitationService;
import dev.hearth.server.invitations.InvitationStore;
import dev.hearth.server.invitations.InvitationsApi;
import dev.hearth.server.mail.Mailer;
import dev.hearth.server.mail.OutboxMailer;
import dev.hearth.server.mail.SmtpMailer;
import dev.hearth.server.operations.OperationStore;
import dev.hearth.server.operations.Operations;
import dev.hearth.server.operations.OperationsApi;
import dev.hearth.server.process.Subreaper;
import dev.hearth.server.router.ComputerProxy;
import dev.hearth.server.sandbox.SandboxRuntime;
import dev.hearth.server.sandbox.runsc.RunscRuntime;
import dev.hearth.server.store.Store;
import dev.hearth.server.tenancy.Action;
import dev.hearth.server.tenancy.Workspace;
import dev.hearth.server.variables.VariableService;
import dev.hearth.server.variables.VariableStore;
import dev.hearth.server.variables.VariablesApi;
import dev.hearth.server.workspaces.WorkspaceService;
import dev.hearth.server.workspaces.WorkspaceStore;
import dev.hearth.server.workspaces.WorkspacesApi;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The composition root of {@code hearth serve}: builds every part with {@code new} and starts Jetty. */
public final class HearthServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HearthServer.class);
    public static final String VERSION = "0.1.0";

    private final Server jetty;
    // The computer router: its own Jetty server, since it answers any Host and speaks for computers.
    private final Server routerJetty;
    private final Store store;
    private final RouteTable routes;
    private final String baseUrl;
    private final ScheduledExecutorService maintenance;
    private final Optional<Path> adminKeyFile;
    private final Operations operations;
    private final VariableService variables;
    private final ComputerService computers;
    private final InvitationMail invitationMail;
    private final DatabaseService databases;

    private HearthServer(Config config) throws Exception {
        Files.createDirectories(config.dataDir());
        Files.setPosixFilePermissions(config.dataDir(), PosixFilePermissions.fromString("rwx------"));
        jetty = new Server(threads("hearth", "api-"));
        var connector = connector(jetty, config.host(), config.port());
        connector.open();
        routerJetty = new Server(threads("router", "router-"));
        var routerConnector = connector(routerJetty, config.router().host(), config.router().port());
        routerConnector.open();
        int routerPort = config.router().publicPort().orElse(routerConnector.getLocalPort());
        String routerHost = config.router().domain() + (routerPort == 80 ? "" : ":" + routerPort);
        baseUrl = config.publicUrl().orElse("http://" + config.host() + ":" + connector.getLocalPort() + ApiHandler.PREFIX);
        store = Store.open(config.store(), config.dataDir());
        var jdbi = store.jdbi();
        var clock = config.clock();

        var principals = new PrincipalStore();
        var accessStore = new AccessStore();
        var workspaceStore = new WorkspaceStore();
        var authStore = new AuthStore();
        var signingKeys = new SigningKeys(config.dataDir().resolve("signing-keys.json"), clock,
                config.signingKeyRotation(), config.accessTokenLifetime());
        var tokens = new AccessTokens(signingKeys, clock, config.accessTokenLifetime(), baseUrl);
        var access = new AccessService(jdbi, principals, accessStore, workspaceStore, clock, baseUrl,
                baseUrl + "/auth/token");
        var variableStore = new VariableStore();
        var keyring = new Keyring(config.encryptionKeyFile());
        variables = new VariableService(jdbi, variableStore, keyring, clock);
        var operationStore = new OperationStore();
        operations = new Operations(jdbi, operationStore, clock, config.operationLease(), config.operationKinds());
        var computerStore = new ComputerStore();
        var imageStore = new ImageStore();
        var images = new Images(Files.createDirectories(config.dataDir().toAbsolutePath().resolve("images")));
        var checkpointKinds = new CheckpointKinds(jdbi, new CheckpointStore(), operations);
        computers = computers(config, jdbi, computerStore, images, imageStore, clock, routerHost, checkpointKinds);
        var databaseStore = new DatabaseStore(config.databases().publicHost());
        var databaseEngine = DatabaseEngine.open(config.databases(), config.dataDir(), jdbi, databaseStore);
        databases = new DatabaseService(jdbi, databaseStore, checkpointKinds.store(), keyring, databaseEngine,
                config.databases(), clock);
        var databaseCheckpoints = new DatabaseCheckpoints(jdbi, checkpointKinds, databases, clock);
        var workspaces = new WorkspaceService(jdbi, workspaceStore, access::founded,
                List.of(variables.contents(), computers.contents(), databases.contents()), clock);
        var mailer = mailer(config);
        var login = new EmailLogin(jdbi, authStore, access, tokens, mailer, clock, config.sessionLifetime());
        var idempotency = new Idempotency(jdbi, new IdempotencyStore(), clock);
        var invitationStore = new InvitationStore();
        invitationMail = new InvitationMail(jdbi, invitationStore, mailer, clock, config.mailRetry(), baseUrl,
                id -> jdbi.withHandle(h -> workspaceStore.findLive(h, id)).map(Workspace::name).orElse(id));
        var invitations = new InvitationService(jdbi, invitationStore, accessStore, invitationMail, clock,
                config.invitationLifetime());

        routes = new RouteTable();
        routes.add("GET", "/health", Scope.anyone(), ex -> Reply.ok(health()));
        AuthApi.register(routes, new TokenGrant(jdbi, principals, authStore, tokens, clock, baseUrl), login, signingKeys);
        WorkspacesApi.register(routes, workspaces);
        AccessApi.register(routes, access, workspaces);
        VariablesApi.register(routes, variables, variableStore);
        InvitationsApi.register(routes, invitations, invitationStore);
        OperationsApi.register(routes, operations, operationStore);
        ComputersApi.register(routes, computers, computerStore);
        CheckpointsApi.register(routes, computers, computerStore);
        DatabasesApi.register(routes, databases, databaseCheckpoints, databaseStore);
        ImagesApi.register(routes, new ImageService(jdbi, imageStore, images, operations, clock, computers::digestsInUse));

        var authenticator = new Authenticator(tokens, jdbi, principals, authStore, clock);
        var authorizer = new Authorizer(jdbi, workspaceStore, accessStore);
        var guard = new RequestGuard(authenticator, authorizer);
        var webSockets = ServerWebSocketContainer.ensure(jetty);
        webSockets.setIdleTimeout(Duration.ofHours(1));
        jetty.setHandler(new ApiHandler(routes, guard, idempotency, config.maxBodyBytes(), webSockets));
        jetty.setErrorHandler(new JsonErrorHandler());
        adminKeyFile = writeAdminKey(config.dataDir(), access.bootstrapAdmin());
        var webSocketClient = new WebSocketClient();
        routerJetty.addBean(webSocketClient);
        routerJetty.setHandler(new ComputerProxy(computers.routes(), name -> jdbi.withHandle(h -> workspaceStore.findLive(h, name)),
                (authorization, workspace) -> guard.authorize(guard.authenticate(authorization),
                        workspace.id(), Action.COMPUTER_READ),
                config.router().domain(), config.router().timeout(),
                ServerWebSocketContainer.ensure(routerJetty),
                webSocketClient));
        jetty.start();
        routerJetty.start();
        computers.reconcile();
        databases.start();
        DatabaseEngine.closeDataDir(config.dataDir());
        databaseCheckpoints.reconcile();
        operations.start(store.dialect() == Store.Dialect.SQLITE);
        invitationMail.start();

        maintenance = Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("maintenance").factory());
        maintenance.scheduleWithFixedDelay(() -> maintain(idempotency, authStore, signingKeys, jdbi, clock),
                1, 60, TimeUnit.MINUTES);
        LOG.info("hearth {} serving {} (store: {})", VERSION, baseUrl, store.dialect().name().toLowerCase());
    }

    public static HearthServer start(Config config) throws Exception {
        return new HearthServer(config);
    }

    private static QueuedThreadPool threads(String name, String virtualPrefix) {
        var threads = new QueuedThreadPool();
        threads.setName(name);
        threads.setVirtualThreadsExecutor(Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(virtualPrefix, 0).factory()));
        return threads;
    }

    private static ServerConnector connector(Server jetty, String host, int port) {
        var http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(true);
        var connector = new ServerConnector(jetty, new HttpConnectionFactory(http));
        connector.setHost(host);
        connector.setPort(port);
        jetty.addConnector(connector);
        return connector;
    }

    private ComputerService computers(Config config, Jdbi jdbi, ComputerStore store, Images images,
                                      ImageStore imageStore, Clock clock, String routerHost,
                                      CheckpointKinds checkpointKinds) throws IOException {
        Path dataDir = config.dataDir().toAbsolutePath();
        var unavailable = RunscRuntime.unavailableReason("runsc");
        Optional<SandboxRuntime> runtime = Optional.empty();
        if (unavailable.isEmpty()) {
            Subreaper.start();
            runtime = Optional.of(new RunscRuntime("runsc", Files.createDirectories(dataDir.resolve("runsc"))));
        } else {
            LOG.warn("computers are unavailable: {}", unavailable.get());
        }
        return new ComputerService(new ComputerService.Inputs(jdbi, store, variables, images, imageStore, runtime,
                unavailable.orElse(""), checkpointKinds, dataDir, clock, () -> routerHost), operations);
    }

    private static Mailer mailer(Config config) {
        return config.smtp().<Mailer>map(SmtpMailer::new)
                .orElseGet(() -> new OutboxMailer(config.dataDir().resolve("outbox")));
    }

    private Object health() {
        var body = new LinkedHashMap<String, Object>();
        body.put("status", "ok");
        body.put("version", VERSION);
        body.put("store", store.jdbi().withHandle(h -> h.createQuery("SELECT 1").mapTo(Integer.class).one()) == 1
                ? "ok" : "unavailable");
        return body;
    }

    private static Optional<Path> writeAdminKey(Path dataDir, Optional<KeyFile> keyFile) throws IOException {
        if (keyFile.isEmpty()) {
            return Optional.empty();
        }
        Path file = dataDir.resolve("admin-key.json");
        Disk.writePrivate(file, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(keyFile.get()));
        LOG.info("empty store: created the admin principal; its key file is {} (use HEARTH_KEY_FILE={})", file, file);
        return Optional.of(file);
    }

    private static void maintain(Idempotency idempotency, AuthStore auth, SigningKeys keys,
                                 Jdbi jdbi, Clock clock) {
        try {
            idempotency.purge();
            jdbi.useTransaction(h -> auth.purge(h, clock.instant()));
            keys.rotateIfDue();
        } catch (RuntimeException e) {
            LOG.warn("maintenance failed; will retry in an hour", e);
        }
    }

    public String baseUrl() {
        return baseUrl;
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

    /** The operation executor, for work that features start. */
    public Operations operations() {
        return operations;
    }

    public void join() throws InterruptedException {
        jetty.join();
    }

    @Override
    public void close() throws Exception {
        maintenance.shutdownNow();
        jetty.stop();
        routerJetty.stop();
        computers.close();
        databases.close();
        invitationMail.close();
        operations.close();
        store.close();
    }
}
