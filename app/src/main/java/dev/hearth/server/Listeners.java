package dev.hearth.server;

import dev.hearth.server.computers.RouteTargets;
import dev.hearth.server.http.ApiHandler;
import dev.hearth.server.http.Guard;
import dev.hearth.server.http.Idempotency;
import dev.hearth.server.http.JsonErrorHandler;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.limits.DiskReserve;
import dev.hearth.server.limits.RateLimits;
import dev.hearth.server.router.ComputerProxy;
import dev.hearth.server.router.RouterSettings;
import dev.hearth.server.tenancy.Action;
import dev.hearth.server.tenancy.Workspace;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;

/**
 * The two HTTP servers of {@code hearth serve}: the API, and the computer router (its own Jetty
 * server, since it answers any Host and speaks for computers). Their ports are opened first, so
 * that the URLs they name are known before anything is built.
 */
final class Listeners implements AutoCloseable {
    private final Server api;
    private final Server router;
    private final String baseUrl;
    private final String routerHost;

    private Listeners(Server api, Server router, String baseUrl, String routerHost) {
        this.api = api;
        this.router = router;
        this.baseUrl = baseUrl;
        this.routerHost = routerHost;
    }

    static Listeners open(Config config) throws IOException {
        var api = new Server(threads("hearth", "api-"));
        var apiConnector = connector(api, config.host(), config.port());
        var router = new Server(threads("router", "router-"));
        RouterSettings settings = config.router();
        var routerConnector = connector(router, settings.host(), settings.port());
        int routerPort = settings.publicPort().orElse(routerConnector.getLocalPort());
        String baseUrl = config.publicUrl().orElse("http://" + config.host() + ":" + apiConnector.getLocalPort()
                + ApiHandler.PREFIX);
        return new Listeners(api, router, baseUrl, settings.domain() + (routerPort == 80 ? "" : ":" + routerPort));
    }

    /** The {base_url} clients use. */
    String baseUrl() {
        return baseUrl;
    }

    /** The router's domain and port as computer URLs name them ("localhost:7301"). */
    String routerHost() {
        return routerHost;
    }

    void serveApi(RouteTable routes, Guard guard, Idempotency idempotency, RateLimits rates, DiskReserve reserve,
                  long maxBodyBytes) {
        var webSockets = ServerWebSocketContainer.ensure(api);
        webSockets.setIdleTimeout(Duration.ofHours(1));
        api.setHandler(new ApiHandler(routes, guard, idempotency, rates, reserve, maxBodyBytes, webSockets));
        api.setErrorHandler(new JsonErrorHandler());
    }

    /** The router lets through callers with a role that may read the computer's workspace. */
    void serveRouter(RouteTargets targets, Function<String, Optional<Workspace>> workspaceByName, Guard guard,
                     RouterSettings settings) {
        var webSocketClient = new WebSocketClient();
        router.addBean(webSocketClient);
        router.setHandler(new ComputerProxy(targets, workspaceByName,
                (authorization, workspace) -> guard.authorize(guard.authenticate(authorization), workspace.id(),
                        Action.COMPUTER_READ),
                settings.domain(), settings.timeout(), ServerWebSocketContainer.ensure(router), webSocketClient));
    }

    void start() throws Exception {
        api.start();
        router.start();
    }

    void join() throws InterruptedException {
        api.join();
    }

    @Override
    public void close() throws Exception {
        api.stop();
        router.stop();
    }

    private static QueuedThreadPool threads(String name, String virtualPrefix) {
        var threads = new QueuedThreadPool();
        threads.setName(name);
        threads.setVirtualThreadsExecutor(Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name(virtualPrefix, 0).factory()));
        return threads;
    }

    private static ServerConnector connector(Server jetty, String host, int port) throws IOException {
        var http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(true);
        var connector = new ServerConnector(jetty, new HttpConnectionFactory(http));
        connector.setHost(host);
        connector.setPort(port);
        jetty.addConnector(connector);
        connector.open();
        return connector;
    }
}
