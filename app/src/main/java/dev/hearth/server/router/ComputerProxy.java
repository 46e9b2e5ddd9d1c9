package dev.hearth.server.router;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.computers.RouteTargets.RouteTarget;
import dev.hearth.server.computers.RouteTargets;
import dev.hearth.server.http.ErrorEnvelope;
import dev.hearth.server.http.Relay;
import dev.hearth.server.http.WebSocketRelay;
import dev.hearth.server.store.Ids;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.eclipse.jetty.websocket.server.ServerUpgradeRequest;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The computer router: a request to {@code {computer}--{workspace}.{domain}} goes to the computer's
 * address inside its network namespace, on the target port the host name selects. A sleeping
 * computer is woken first. Bodies stream both ways (Jetty's reverse proxy); WebSocket upgrades are
 * relayed. What goes wrong answers in the API's error envelope: 404 for a name that leads nowhere,
 * 502 when nothing listens, 504 when the computer does not answer.
 */
public final class ComputerProxy extends ProxyHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ComputerProxy.class);
    private static final String TARGET = "hearth.proxy.target";
    private static final String PRIVATE = "hearth.proxy.private";
    private static final String RETRIED = "hearth.proxy.retried";
    private static final String RELAYED = "hearth.proxy.relayed";
    private static final String COMPUTER = "hearth.proxy.computer";
    /**
     * A front end in front of this proxy (E2B's host names) that found the computer and port itself
     * sets this request attribute to the {@link RouteTarget}: it is used as it is, no host name read.
     */
    public static final String RESOLVED = "hearth.proxy.resolved";
    private static final Set<String> NOT_RELAYED = Set.of("host", "upgrade", "connection", "sec-websocket-key",
            "sec-websocket-version", "sec-websocket-extensions", "sec-websocket-protocol", "content-length");

    /** Checks that a request with this Authorization header may reach the workspace's private ports. */
    @FunctionalInterface
    public interface Access {
        void check(String authorization, Workspace workspace);
    }

    private final RouteTargets computers;
    private final Function<String, Optional<Workspace>> workspaceByName;
    private final Access access;
    private final String domain;
    private final ServerWebSocketContainer webSockets;
    private final WebSocketClient webSocketClient;
    private final Duration timeout;
    private final OtherNodes nodes;

    public ComputerProxy(RouteTargets computers, Function<String, Optional<Workspace>> workspaceByName, Access access,
                         String domain, Duration timeout, ServerWebSocketContainer webSockets,
                         WebSocketClient webSocketClient, OtherNodes nodes) {
        this.timeout = timeout;
        this.nodes = nodes;
        this.computers = computers;
        this.workspaceByName = workspaceByName;
        this.access = access;
        this.domain = domain;
        this.webSockets = webSockets;
        this.webSocketClient = webSocketClient;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        RouteTarget target;
        String address;
        boolean webSocket = "websocket".equalsIgnoreCase(request.getHeaders().get(HttpHeader.UPGRADE));
        try {
            boolean fromNode = fromOtherNode(request);
            target = request.getAttribute(RESOLVED) instanceof RouteTarget resolved ? resolved
                    : resolve(request, fromNode);
            request.setAttribute(PRIVATE, target.port().privateAccess());
            try {
                address = computers.enterRoute(target);
                computers.forwardLocal(target);
            } catch (ApiException e) {
                if (fromNode || !e.is(ErrorCode.WRONG_NODE)) {
                    throw e;
                }
                String node = String.valueOf(e.details().get("node"));
                return webSocket ? webSocketToOtherNode(request, response, callback, node)
                        : toOtherNode(request, response, callback, node);
            }
        } catch (ApiException e) {
            writeError(response, callback, e);
            return true;
        }
        if (webSocket) {
            return relay(request, response, callback, target, address);
        }
        request.setAttribute(TARGET, HttpURI.build(request.getHttpURI()).scheme("http").host(address)
                .port(target.port().target()).asImmutable());
        String computerId = target.computerId();
        request.setAttribute(COMPUTER, computerId);
        return super.handle(withoutExpect(request), response, Callback.from(() -> {
            computers.leaveRoute(computerId);
            callback.succeeded();
        }, failure -> {
            computers.leaveRoute(computerId);
            callback.failed(failure);
        }));
    }

    /**
     * Many small servers (busybox httpd among them) never answer {@code Expect: 100-continue}; the
     * proxy would then hold the body back until the client gives up. Jetty answers the client's
     * expectation itself once the body is read, so the computer is sent the body at once.
     */
    private static Request withoutExpect(Request request) {
        if (!request.getHeaders().contains(HttpHeader.EXPECT)) {
            return request;
        }
        var headers = HttpFields.build(request.getHeaders()).remove(HttpHeader.EXPECT).asImmutable();
        return new Request.Wrapper(request) {
            @Override
            public HttpFields getHeaders() {
                return headers;
            }
        };
    }

    /** Whether another node's router relayed this request; 401 for a relay header that does not verify. */
    private boolean fromOtherNode(Request request) {
        String vouch = request.getHeaders().get(Relay.HEADER);
        if (vouch == null) {
            return false;
        }
        if (!nodes.verify(vouch, request.getMethod(), hostAndPath(request))) {
            throw ApiException.unauthenticated("the " + Relay.HEADER + " header does not verify: only nodes relay");
        }
        return true;
    }

    private static String hostAndPath(Request request) {
        return request.getHeaders().get(HttpHeader.HOST) + request.getHttpURI().getPathQuery();
    }

    /**
     * Sends the request to the router of the node that runs the computer, under the same host name:
     * that router wakes and reaches it. The caller's access was checked here.
     */
    private boolean toOtherNode(Request request, Response response, Callback callback, String node) {
        String router = routerOf(node);
        int colon = router.lastIndexOf(':');
        request.setAttribute(TARGET, HttpURI.build(request.getHttpURI()).scheme(nodes.scheme())
                .host(router.substring(0, colon)).port(Integer.parseInt(router.substring(colon + 1))).asImmutable());
        request.setAttribute(RELAYED, nodes.vouch(request.getMethod(), hostAndPath(request)));
        return super.handle(withoutExpect(request), response, callback);
    }

    private String routerOf(String node) {
        return nodes.routerOf().apply(node).orElseThrow(() -> new ApiException(ErrorCode.NODE_UNAVAILABLE,
                "the computer is on node " + node + ", whose router is not known", Map.of("node", node)));
    }

    /** The computer and port the Host names; private ports also check the caller's token, unless a node checked it. */
    private RouteTarget resolve(Request request, boolean fromNode) {
        String host = request.getHeaders().get(HttpHeader.HOST);
        var readings = HostName.readings(host, domain);
        if (readings.isEmpty()) {
            throw notFound("no computer at " + host + "; computer addresses look like {computer}--{workspace}."
                    + domain);
        }
        for (var name : readings) {
            var workspace = workspaceByName.apply(name.workspace());
            var target = workspace.flatMap(w -> computers.routeFor(w, name.label()));
            if (target.isPresent()) {
                if (target.get().port().privateAccess() && !fromNode) {
                    access.check(request.getHeaders().get(HttpHeader.AUTHORIZATION), workspace.get());
                }
                return target.get();
            }
        }
        throw notFound("no computer port at " + host + " (a computer's name, with -PORT for a port published on "
                + "another port than 80, then -- and its workspace's name)");
    }

    @Override
    protected org.eclipse.jetty.client.Request newProxyToServerRequest(Request request, HttpURI target) {
        var toComputer = super.newProxyToServerRequest(request, target).idleTimeout(timeout.toMillis(),
                TimeUnit.MILLISECONDS);
        if (request.getAttribute(COMPUTER) instanceof String computerId) {
            Runnable over = computers.whileSent(computerId, why -> toComputer.abort(new ComputerGone(why)));
            toComputer.onComplete(result -> over.run());
        }
        return toComputer;
    }

    /** Why a request into a computer ended before its answer: its sandbox went meanwhile. */
    private static final class ComputerGone extends Exception {
        ComputerGone(String why) {
            super(why, null, false, false);
        }
    }

    @Override
    protected HttpURI rewriteHttpURI(Request request) {
        return (HttpURI) request.getAttribute(TARGET);
    }

    @Override
    protected void copyRequestHeaders(Request request, org.eclipse.jetty.client.Request toComputer) {
        super.copyRequestHeaders(request, toComputer);
        if (request.getAttribute(RELAYED) instanceof String vouch) {
            String host = request.getHeaders().get(HttpHeader.HOST);
            toComputer.headers(h -> h.put(HttpHeader.HOST, host).put(Relay.HEADER, vouch));
        }
        if (Boolean.TRUE.equals(request.getAttribute(PRIVATE))) {
            // The token was for Hearth, not for the program in the computer.
            toComputer.headers(h -> h.remove(HttpHeader.AUTHORIZATION));
        }
    }

    @Override
    protected void addProxyHeaders(Request request, org.eclipse.jetty.client.Request toComputer) {
        super.addProxyHeaders(request, toComputer);
        String client = Request.getRemoteAddr(request);
        toComputer.headers(h -> {
            String before = request.getHeaders().get("X-Forwarded-For");
            h.put("X-Forwarded-For", before == null ? client : before + ", " + client);
            h.put("X-Forwarded-Proto", request.isSecure() ? "https" : "http");
            h.put("X-Forwarded-Host", request.getHeaders().get(HttpHeader.HOST));
        });
    }

    @Override
    protected void onServerToProxyResponseFailure(Request request, org.eclipse.jetty.client.Request toComputer,
                                                  org.eclipse.jetty.client.Response fromComputer, Response response,
                                                  Callback callback, Throwable failure) {
        // Connections into a computer are reset by every sleep and checkpoint: a body-less request that
        // failed before any answer is sent once more, on a new connection.
        boolean retry = !response.isCommitted() && request.getAttribute(RETRIED) == null
                && !(failure instanceof TimeoutException) && !(failure instanceof ComputerGone)
                && request.getLength() <= 0
                && Set.of("GET", "HEAD", "OPTIONS").contains(request.getMethod());
        if (retry) {
            request.setAttribute(RETRIED, true);
            super.handle(request, response, callback);
            return;
        }

        if (response.isCommitted()) {
            callback.failed(failure);
            return;
        }
        // The computer's headers (its Content-Length among them) may be set already: the error replaces them.
        response.reset();
        var target = (HttpURI) request.getAttribute(TARGET);
        if (request.getAttribute(RELAYED) != null) {
            writeError(response, callback, new ApiException(ErrorCode.NODE_UNAVAILABLE, "the router of the node "
                    + "that runs this computer, at " + target.getAuthority() + ", did not answer: " + failure.getMessage()));
            return;
        }
        if (failure instanceof ComputerGone gone) {
            writeError(response, callback, new ApiException(ErrorCode.BAD_GATEWAY, gone.getMessage()));
            return;
        }
        boolean timedOut = failure instanceof TimeoutException;
        writeError(response, callback, new ApiException(timedOut ? ErrorCode.GATEWAY_TIMEOUT : ErrorCode.BAD_GATEWAY,
                (timedOut ? "the computer did not answer within " + timeout.toSeconds() + " s on port "
                        : "nothing answered on port ") + target.getPort()
                        + " of the computer: " + failure.getMessage()));
    }

    /** Ends the client's WebSocket here and opens one to the computer; messages are relayed between them. */
    private boolean relay(Request request, Response response, Callback callback, RouteTarget target, String address) {
        var uri = URI.create("ws://" + address + ":" + target.port().target() + request.getHttpURI().getPathQuery());
        boolean hideToken = target.port().privateAccess();
        return relayWebSocket(request, response, callback, uri, (upgrade, out) -> {
            copyHeaders(upgrade, out, hideToken);
            out.setHeader("X-Forwarded-Host", upgrade.getHeaders().get(HttpHeader.HOST));
            out.setHeader("X-Forwarded-For", Request.getRemoteAddr(upgrade));
        }, () -> computers.leaveRoute(target.computerId()),
                "the computer did not accept a WebSocket on port " + target.port().target());
    }

    /**
     * The same to the router of the node that runs the computer, under the same host name and
     * signed as {@link #toOtherNode} signs: that router reaches the computer as for its own callers.
     */
    private boolean webSocketToOtherNode(Request request, Response response, Callback callback, String node) {
        String router = routerOf(node);
        var uri = URI.create(nodes.scheme().replaceFirst("^http", "ws") + "://" + router
                + request.getHttpURI().getPathQuery());
        String vouch = nodes.vouch(request.getMethod(), hostAndPath(request));
        return relayWebSocket(request, response, callback, uri, (upgrade, out) -> {
            copyHeaders(upgrade, out, false);
            out.setHeader(HttpHeader.HOST.asString(), upgrade.getHeaders().get(HttpHeader.HOST));
            out.setHeader(Relay.HEADER, vouch);
        }, () -> { }, "node " + node + "'s router did not accept the WebSocket");
    }

    private static void copyHeaders(ServerUpgradeRequest upgrade, ClientUpgradeRequest out, boolean hideToken) {
        out.setSubProtocols(upgrade.getSubProtocols());
        for (var field : upgrade.getHeaders()) {
            String header = field.getLowerCaseName();
            if (!NOT_RELAYED.contains(header) && !(hideToken && header.equals("authorization"))) {
                out.setHeader(field.getName(), field.getValue());
            }
        }
    }

    private boolean relayWebSocket(Request request, Response response, Callback callback, URI uri,
                                   BiConsumer<ServerUpgradeRequest, ClientUpgradeRequest> headers, Runnable onClose,
                                   String refusal) {
        var relay = new WebSocketRelay(onClose);
        if (!webSockets.upgrade(relay.to(webSocketClient, uri, headers, refusal), request, response, callback)) {
            onClose.run();
            writeError(response, callback, ApiException.invalidField("upgrade", "not a valid WebSocket upgrade"));
        }
        return true;
    }

    private static ApiException notFound(String message) {
        return new ApiException(ErrorCode.NOT_FOUND, message);
    }

    private static void writeError(Response response, Callback callback, ApiException e) {
        ErrorEnvelope.write(response, callback, e, Ids.next());
    }

}
