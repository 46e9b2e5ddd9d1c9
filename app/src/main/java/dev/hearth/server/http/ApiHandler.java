package dev.hearth.server.http;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Json;
import dev.hearth.server.limits.DiskReserve;
import dev.hearth.server.limits.RateLimits;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.StoreUnavailable;
import dev.hearth.server.tenancy.Caller;
import dev.hearth.server.tenancy.Membership;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API's Jetty handler: translates HTTP to an {@link Exchange} and a {@link Reply} back. It finds
 * the route, reads the body within the size limit, authenticates, checks the route's scope (the one
 * place permissions are enforced), applies idempotency to mutations, and renders every failure as
 * the error envelope.
 */
public final class ApiHandler extends Handler.Abstract {
    public static final String PREFIX = "/v1";
    private static final String HEALTH = PREFIX + "/health";
    private static final Logger LOG = LoggerFactory.getLogger(ApiHandler.class);
    private static final String ROUTE = "hearth.route";
    private static final String JSON_BODY = "hearth.json-body";
    private static final Pattern PATH_PARAM = Pattern.compile("^[A-Za-z0-9_-]{1,64}$");

    private final RouteTable routes;
    private final Guard guard;
    private final Idempotency idempotency;
    private final RateLimits rates;
    private final DiskReserve reserve;
    private final long maxBodyBytes;
    private final ServerWebSocketContainer webSockets;
    private final RequestObserver observer;
    private final Relay relay;
    private final Relaying relaying;

    public ApiHandler(RouteTable routes, Guard guard, Idempotency idempotency, RateLimits rates, DiskReserve reserve,
                      long maxBodyBytes, ServerWebSocketContainer webSockets, RequestObserver observer, Relay relay) {
        this.observer = observer;
        this.relay = relay;
        this.relaying = new Relaying(relay, guard, rates);
        this.rates = rates;
        this.reserve = reserve;
        this.webSockets = webSockets;
        this.routes = routes;
        this.guard = guard;
        this.idempotency = idempotency;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        long start = System.nanoTime();
        String requestId = Ids.next();
        Reply reply;
        try {
            reply = serve(request, requestId);
        } catch (ApiException e) {
            reply = errorReply(e, requestId);
        } catch (Exception e) {
            reply = errorReply(failure(request, requestId, e), requestId);
        }
        if (reply.body() instanceof Reply.Upgrade upgrade) {
            response.getHeaders().put("X-Request-Id", requestId);
            if (webSockets.upgrade(upgrade.creator(), request, response, callback)) {
                observe(request, 101, start);
                return true;
            }
            reply = errorReply(new ApiException(ErrorCode.INVALID_REQUEST,
                    "this route is a WebSocket: connect with Upgrade: websocket (or POST for a command's output)"), requestId);
        }
        // A body the route left unread (an upload refused at once) may still be on its way. Jetty then
        // closes the connection after the answer, and a client that pooled it would lose its next
        // request to an end of file: the answer says so first.
        if (!request.consumeAvailable()) {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        byte[] json = write(response, callback, reply, requestId);
        if (json != null) {
            Object route = request.getAttribute(ROUTE);
            observer.answered(request.getMethod(), route == null ? null : route.toString(), reply.status(), json);
        }
        if (reply.status() / 100 == 2 && request.getAttribute(JSON_BODY) instanceof byte[] accepted) {
            observer.accepted(request.getMethod(), request.getAttribute(ROUTE).toString(), accepted);
        }
        observe(request, reply.status(), start);
        return true;
    }

    /** Requests no route matched count under "unmatched", so that made-up paths never become labels. */
    private void observe(Request request, int status, long start) {
        Object route = request.getAttribute(ROUTE);
        observer.observe(request.getMethod(), route == null ? "unmatched" : PREFIX + route, status,
                System.nanoTime() - start);
    }

    /** A fault (500, logged with its stack) or a store too busy to answer now (503, come back in a second). */
    private static ApiException failure(Request request, String requestId, Exception e) {
        if (StoreUnavailable.causedBy(e)) {
            LOG.warn("request {} {} {}: the store is busy: {}", requestId, request.getMethod(),
                    request.getHttpURI().getPath(), e.getMessage());
            return new ApiException(ErrorCode.STORE_UNAVAILABLE, "the store is busy; retry in a moment",
                    Map.of(ErrorEnvelope.RETRY_AFTER, 1));
        }
        LOG.error("request {} {} {} failed", requestId, request.getMethod(), request.getHttpURI().getPath(), e);
        return new ApiException(ErrorCode.INTERNAL, "internal error; quote request id " + requestId + " when reporting it");
    }

    private Reply serve(Request request, String requestId) throws IOException {
        String path = request.getHttpURI().getDecodedPath();
        String method = request.getMethod();
        var match = match(request, path);
        var route = match.route();
        byte[] body = route.streamsBody() ? new byte[0] : readBody(request);
        keepJson(request, body);
        var headers = headers(request);
        if (!(route.scope() instanceof Scope.Public)) {
            ConsoleCookie.authorize(headers, method, guard); // a stale cookie does not stop a sign-in
        }
        String target = request.getHttpURI().getPathQuery();
        var vouched = relay.vouched(method, target, headers.get(Relay.HEADER));
        var query = query(request);
        String named = Relaying.resource(route, match.params(), query);
        if (vouched.isEmpty() && named != null && !route.streamsBody() && !headers.containsKey("upgrade")) {
            var elsewhere = relaying.atOnce(named, new Relay.Relayed(method, target, headers, null, body, null));
            if (elsewhere.isPresent()) {
                return elsewhere.get();
            }
        }
        Caller caller = vouched.orElseGet(() -> route.scope() instanceof Scope.Public ? null
                : guard.authenticate(headers.get("authorization")));
        var peer = new Peer(request.getConnectionMetaData().getLocalSocketAddress(),
                request.getConnectionMetaData().getRemoteSocketAddress());
        // A relayed request was counted by the node it came through.
        if (!path.equals(HEALTH) && vouched.isEmpty()) {
            rates.request(caller != null ? caller.id() : "address " + peer.address().getHostAddress());
        }
        InputStream stream = route.streamsBody() ? Content.Source.asInputStream(request) : null;
        var exchange = new Exchange(requestId, path, match.params(), query, headers, body, stream, caller,
                authorized(route, match.params(), caller, query), peer);
        if (method.equals("GET") || method.equals("DELETE")) {
            exchange.noBody();
        }
        if (route.keyRequired()) {
            reserve.require();
        }
        if (vouched.isPresent()) {
            return relay.placedHere(() -> dispatch(route, method, exchange));
        }
        return placed(() -> dispatch(route, method, exchange),
                new Relay.Relayed(method, target, headers, caller, body, stream), named, requestId);
    }

    /** The route of a path under /v1, its parameters checked; 404 for any other path. */
    private RouteTable.Match match(Request request, String path) {
        if (path == null || !(path.equals(PREFIX) || path.startsWith(PREFIX + "/"))) {
            throw ApiException.notFound("route " + path);
        }
        var match = routes.find(request.getMethod(), path.substring(PREFIX.length()));
        checkParams(match.params());
        request.setAttribute(ROUTE, match.route().template());
        return match;
    }

    /** A JSON body is kept on the request for the observer, which checks what was accepted. */
    private static void keepJson(Request request, byte[] body) {
        if (body.length > 0 && request.getHeaders().get(HttpHeader.CONTENT_TYPE) instanceof String type
                && type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            request.setAttribute(JSON_BODY, body);
        }
    }

    /** The caller's membership the route's scope asks for (null for public and signed-in routes). */
    private Membership authorized(Route route, Map<String, String> params, Caller caller,
                                  Map<String, List<String>> query) {
        return switch (route.scope()) {
            case Scope.InWorkspace(var action) -> guard.authorize(caller, params.get("ws"), action);
            case Scope.OfResource resource -> guard.authorize(caller, resource, params.get(resource.param()),
                    Exchange.single(query, "workspace"));
            case Scope.Public p -> null;
            case Scope.SignedIn s -> null;
            case Scope.Operator o -> {
                if (!caller.operates()) {
                    throw new ApiException(ErrorCode.FORBIDDEN, "only the server's operator may do this (the admin principal "
                            + "made at first start, signed in with its key file)");
                }
                yield null;
            }
        };
    }

    /** Answers here or where the resource lives; a create placed on a node that racing creates filled is placed again. */
    private Reply placed(Supplier<Reply> here, Relay.Relayed relayed, String named,
                         String requestId) {
        for (int attempt = 1; ; attempt++) {
            try {
                Reply reply = relaying.dispatchOrRelay(here, relayed, named);
                if (attempt == PLACEMENTS || !full(reply)) {
                    return reply;
                }
            } catch (ApiException e) {
                if (attempt == PLACEMENTS || !full(ErrorEnvelope.reply(e, requestId))) {
                    throw e;
                }
            }
        }
    }

    private static final int PLACEMENTS = 5;

    /** Whether the answer (this node's or a relayed one's) says the node placement chose was full. */
    private static boolean full(Reply reply) {
        return reply.headers().entrySet().stream()
                .anyMatch(h -> h.getKey().equalsIgnoreCase(Relay.PLACEMENT) && h.getValue().equals(Relay.FULL));
    }

    private Reply dispatch(Route route, String method, Exchange exchange) {
        if (route.mutation() && exchange.caller() != null && !route.streamsBody()) {
            Function<String, Reply> recall = route.recall() == null ? null
                    : id -> route.recall().recall(exchange, id);
            return idempotency.run(exchange, method, route.keyRequired(), () -> route.handler().handle(exchange),
                    recall);
        }
        return route.handler().handle(exchange);
    }

    private static void checkParams(Map<String, String> params) {
        for (var e : params.entrySet()) {
            if (!PATH_PARAM.matcher(e.getValue()).matches()) {
                throw ApiException.invalidField(e.getKey(), "must match ^[A-Za-z0-9_-]{1,64}$ (an id or a name)");
            }
        }
    }

    // A client still sending a refused body gets a reset, not the 413, unless we read the body first.
    private static final long DRAIN_LIMIT = 16L << 20;

    private byte[] readBody(Request request) throws IOException {
        try (InputStream in = Content.Source.asInputStream(request)) {
            if (request.getLength() > maxBodyBytes) {
                drain(in);
                throw tooLarge();
            }
            byte[] bytes = readBounded(in);
            if (bytes.length > maxBodyBytes) {
                drain(in);
                throw tooLarge();
            }
            return bytes;
        }
    }

    /** A body Jetty cannot frame (a bad chunk, a length it does not hold) is the client's error, not ours. */
    private byte[] readBounded(InputStream in) throws IOException {
        try {
            return in.readNBytes((int) maxBodyBytes + 1);
        } catch (IOException e) {
            if (e instanceof HttpException || e instanceof EofException || e.getCause() instanceof HttpException) {
                throw new ApiException(ErrorCode.INVALID_REQUEST, "the request body could not be read: " + e.getMessage());
            }
            throw e;
        }
    }

    private static void drain(InputStream in) throws IOException {
        long left = DRAIN_LIMIT;
        byte[] sink = new byte[64 * 1024];
        for (int n = in.read(sink); n > 0 && left > 0; n = in.read(sink)) {
            left -= n;
        }
    }

    private ApiException tooLarge() {
        return new ApiException(ErrorCode.PAYLOAD_TOO_LARGE, "request body exceeds " + maxBodyBytes + " bytes",
                Map.of("limit_bytes", maxBodyBytes));
    }

    private static Map<String, String> headers(Request request) {
        var headers = new HashMap<String, String>();
        for (var field : request.getHeaders()) {
            headers.putIfAbsent(field.getLowerCaseName(), field.getValue());
        }
        return headers;
    }

    private static Map<String, List<String>> query(Request request) {
        var query = new LinkedHashMap<String, List<String>>();
        String raw = request.getHttpURI().getQuery();
        if (raw == null || raw.isEmpty()) {
            return query;
        }
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            query.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        }
        return query;
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new ApiException(ErrorCode.INVALID_REQUEST, "malformed query string");
        }
    }

    private static void writeStream(Response response, Callback callback, Reply reply, Reply.Stream stream,
                                    String requestId) {
        response.setStatus(reply.status());
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.getHeaders().put("X-Request-Id", requestId);
        reply.headers().forEach(response.getHeaders()::put);
        try (var out = Content.Sink.asOutputStream(response)) {
            stream.writeTo(out);
        } catch (IOException e) {
            callback.failed(e);
            return;
        }
        callback.succeeded();
    }

    static Reply errorReply(ApiException e, String requestId) {
        return ErrorEnvelope.reply(e, requestId);
    }

    /** Writes the answer; the JSON written, or null for a stream. */
    static byte[] write(Response response, Callback callback, Reply reply, String requestId) {
        if (reply.body() instanceof Reply.Stream stream) {
            writeStream(response, callback, reply, stream, requestId);
            return null;
        }
        byte[] bytes;
        try {
            bytes = reply.body() instanceof Reply.RawJson raw ? raw.bytes() : Json.mapper().writeValueAsBytes(reply.body());
        } catch (IOException e) {
            callback.failed(e);
            return null;
        }
        response.setStatus(reply.status());
        var headers = response.getHeaders();
        headers.put(HttpHeader.CONTENT_TYPE, "application/json");
        headers.put(HttpHeader.CACHE_CONTROL, "no-store");
        headers.put("X-Request-Id", requestId);
        reply.headers().forEach(headers::put);
        response.write(true, ByteBuffer.wrap(bytes), callback);
        return bytes;
    }
}
