package dev.hearth.server;

import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.computers.RouteTargets;
import dev.hearth.server.computers.RouterAddress;
import dev.hearth.server.console.ConsoleHandler;
import dev.hearth.server.http.ApiHandler;
import dev.hearth.server.http.Guard;
import dev.hearth.server.http.HttpsRedirect;
import dev.hearth.server.http.Idempotency;
import dev.hearth.server.http.JsonErrorHandler;
import dev.hearth.server.http.PathGuard;
import dev.hearth.server.http.Relay;
import dev.hearth.server.http.RequestObserver;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.StartGate;
import dev.hearth.server.limits.DiskReserve;
import dev.hearth.server.limits.RateLimits;
import dev.hearth.server.router.ComputerProxy;
import dev.hearth.server.router.OtherNodes;
import dev.hearth.server.router.RouterSettings;
import dev.hearth.server.tenancy.Action;
import dev.hearth.server.tls.ServerTls;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.eclipse.jetty.server.DetectorConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;

/**
 * The two HTTP servers of {@code hearth serve}: the API, and the computer router (its own Jetty
 * server, since it answers any Host and speaks for computers). Their ports are opened first, so
 * that the URLs they name are known before anything is built.
 */
final class Listeners implements AutoCloseable {
    // HSTS: browsers keep to HTTPS for a year once they saw it (not for subdomains: other services may live there).
    private static final Duration HSTS = Duration.ofDays(365);
    private final Server api;
    private final Server router;
    private final String baseUrl;
    private final RouterAddress routerAddress;
    private final ListenerTls tls;
    // --redirect-http and --metrics-listen: servers of their own, started and stopped with the rest.
    private final List<Server> extras = new ArrayList<>();
    // Shut until start-up has reconciled what runs: the API and the router answer 503 starting till then.
    private final StartGate gate = new StartGate();

    private Listeners(Server api, Server router, String baseUrl, RouterAddress routerAddress, ListenerTls tls) {
        this.api = api;
        this.router = router;
        this.baseUrl = baseUrl;
        this.routerAddress = routerAddress;
        this.tls = tls;
    }

    static Listeners open(Config config) throws IOException {
        var tls = ListenerTls.of(config);
        var api = new Server(threads("hearth", "api-"));
        var apiConnector = connector(api, config.host(), config.port(), tls.api());
        var router = new Server(threads("router", "router-"));
        RouterSettings settings = config.router();
        var routerConnector = connector(router, settings.host(), settings.port(), tls.router());
        int routerPort = settings.publicPort().orElse(routerConnector.getLocalPort());
        String apiScheme = tls.api().isPresent() ? "https" : "http";
        String routerScheme = settings.publicScheme().orElse(tls.router().isPresent() ? "https" : "http");
        String baseUrl = config.publicUrl().orElse(apiScheme + "://" + config.host() + ":"
                + apiConnector.getLocalPort() + ApiHandler.PREFIX);
        int defaultPort = routerScheme.equals("https") ? 443 : 80;
        var routerAddress = new RouterAddress(routerScheme,
                settings.domain() + (routerPort == defaultPort ? "" : ":" + routerPort));
        var listeners = new Listeners(api, router, baseUrl, routerAddress, tls);
        config.tls().redirectHttp().ifPresent(address -> listeners.redirectHttp(address, settings.domain()));
        return listeners;
    }

    /** The {base_url} clients use. */
    String baseUrl() {
        return baseUrl;
    }

    /**
     * This node's own {@code /v1} on an address of this host (loopback when the API listens on every
     * address), for what in this process is a client of it (the E2B facade).
     */
    String loopbackBaseUrl() {
        var connector = (ServerConnector) api.getConnectors()[0];
        String host = connector.getHost();
        if (host == null || host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            host = "127.0.0.1";
        }
        return nodeScheme(false) + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":"
                + connector.getLocalPort() + ApiHandler.PREFIX;
    }

    /** host:port the API listens on, as other nodes dial it. */
    String apiAddress() {
        var connector = (ServerConnector) api.getConnectors()[0];
        String host = connector.getHost();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + connector.getLocalPort();
    }

    /**
     * How other nodes reach this node's API or router: as the listener itself serves (https with a
     * certificate), whatever scheme a --public-url or a balancer in front shows clients.
     */
    String nodeScheme(boolean router) {
        return (router ? tls.router() : tls.api()).isPresent() ? "https" : "http";
    }

    /** host:port other nodes' routers relay to: the host other nodes reach this node's API at, the router's port. */
    String routerNodeAddress(String apiNodeAddress) {
        var connector = (ServerConnector) router.getConnectors()[0];
        return apiNodeAddress.substring(0, apiNodeAddress.lastIndexOf(':') + 1) + connector.getLocalPort();
    }

    /** The router's scheme, domain and port as computer URLs name them. */
    RouterAddress routerAddress() {
        return routerAddress;
    }

    /**
     * {@code --redirect-http}: a plain listener that answers every request with a redirect, to the
     * router for hosts under its domain and to the API for the rest.
     */
    private void redirectHttp(String address, String routerDomain) {
        String apiOrigin = URI.create(baseUrl).resolve("/").toString().replaceAll("/$", "");
        try {
            extra("redirect", address, new HttpsRedirect(null, host -> {
                String name = host.replaceAll(":\\d+$", "");
                return name.endsWith("." + routerDomain)
                        ? routerAddress.scheme() + "://" + name + routerAddress.host().substring(routerDomain.length())
                        : apiOrigin;
            }));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on --redirect-http " + address, e);
        }
    }

    void serveApi(RouteTable routes, Guard guard, Idempotency idempotency, RateLimits rates, DiskReserve reserve,
                  long maxBodyBytes, RequestObserver observer, Relay relay, Handler nodes, Handler e2b) {
        var webSockets = ServerWebSocketContainer.ensure(api);
        webSockets.setIdleTimeout(Duration.ofHours(1));
        api.setHandler(secured(PathGuard.api(gate.guard(new Handler.Sequence(nodes, e2b, new ConsoleHandler(),
                new ApiHandler(routes, guard, idempotency, rates, reserve, maxBodyBytes, webSockets, observer,
                        relay)))), tls.api()));
    }

    /** The router lets through callers with a role that may read the computer's workspace. */
    void serveRouter(RouteTargets targets, Function<String, Optional<Workspace>> workspaceByName, Guard guard,
                     RouterSettings settings, OtherNodes nodes, Handler e2b) {
        var webSocketClient = new WebSocketClient();
        router.addBean(webSocketClient);
        router.setHandler(secured(PathGuard.router(gate.guard(new Handler.Sequence(e2b, new ComputerProxy(targets,
                workspaceByName,
                (authorization, workspace) -> guard.authorize(guard.authenticate(authorization), workspace.id(),
                        Action.COMPUTER_READ),
                settings.domain(), settings.timeout(), ServerWebSocketContainer.ensure(router), webSocketClient,
                nodes)))),
                tls.router()));
    }

    /** {@code --metrics-listen}: the operator's listener, plain HTTP (keep it on a private address). */
    void serveMetrics(String address, Handler metrics) throws IOException {
        extra("metrics", address, metrics);
    }

    /** A plain-HTTP server of its own on {@code address} (host:port), started and stopped with the rest. */
    private void extra(String name, String address, Handler handler) throws IOException {
        int colon = address.lastIndexOf(':');
        var server = new Server(threads(name, name + "-"));
        connector(server, address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)), Optional.empty());
        server.setHandler(PathGuard.api(handler));
        extras.add(server);
    }

    /** On a TLS listener, plain HTTP (which the port also detects) is redirected to the same host over HTTPS. */
    private static Handler secured(Handler handler, Optional<ServerTls> tls) {
        return tls.isEmpty() ? handler : new HttpsRedirect(handler, host -> "https://" + host);
    }

    void start() throws Exception {
        api.start();
        router.start();
        for (var extra : extras) {
            extra.start();
        }
    }

    /** Start-up is done: the API and the router serve from now on. */
    void ready() {
        gate.open();
    }

    void join() throws InterruptedException {
        api.join();
    }

    @Override
    public void close() throws Exception {
        api.stop();
        router.stop();
        for (var extra : extras) {
            extra.stop();
        }
    }

    private static QueuedThreadPool threads(String name, String virtualPrefix) {
        var threads = new QueuedThreadPool();
        threads.setName(name);
        threads.setVirtualThreadsExecutor(Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name(virtualPrefix, 0).factory()));
        return threads;
    }

    /**
     * A listener; with TLS it detects each connection's first bytes, so that plain HTTP sent to it
     * gets a redirect rather than a reset, and every TLS answer carries HSTS.
     */
    private static ServerConnector connector(Server jetty, String host, int port, Optional<ServerTls> tls)
            throws IOException {
        var http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(true);
        var plain = new HttpConnectionFactory(http);
        ServerConnector connector;
        if (tls.isPresent()) {
            http.addCustomizer(new SecureRequestCustomizer(false, HSTS.toSeconds(), false));
            var ssl = new SslConnectionFactory(tls.get().factory(), plain.getProtocol());
            connector = new ServerConnector(jetty, new DetectorConnectionFactory(ssl), plain);
            jetty.addBean(tls.get());
        } else {
            connector = new ServerConnector(jetty, plain);
        }
        connector.setHost(host);
        connector.setPort(port);
        jetty.addConnector(connector);
        // Jetty's own refusals (a malformed URI, headers too large) in the envelope on every listener.
        jetty.setErrorHandler(new JsonErrorHandler());
        connector.open();
        return connector;
    }
}
