package dev.hearth.server.nodes;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.server.http.Relay;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.WebSocketRelay;
import dev.hearth.server.tenancy.Caller;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.URI;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.apache.hc.core5.http.message.BasicClassicHttpRequest;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/**
 * Sends requests on to the node that runs what they name, signed with the {@link NodeKey}, and
 * answers with that node's answer: JSON as JSON, anything else (exec output, file bytes) streamed
 * through as it arrives.
 */
public final class NodeRelay implements Relay, AutoCloseable {
    // Hop-by-hop, set by the client itself, or replaced by the vouch: never copied to the next node.
    private static final Set<String> NOT_SENT = Set.of("authorization", "connection", "content-length", "expect",
            "host", "upgrade", "keep-alive", "te", "trailer", "transfer-encoding", "proxy-authorization", HEADER);
    private static final Set<String> RETURNED = Set.of("content-type", "content-disposition", "retry-after",
            "location", "x-request-id", Relay.PLACEMENT.toLowerCase(Locale.ROOT));

    private final NodeKey key;
    private final Function<String, Caller> vouchedCaller;
    private final Function<Caller, String> vouchable;
    private final String scheme;
    private final Clock clock;
    // Blocking, on the request's own virtual thread: each handoff between threads (a selector, a
    // pool thread, the waiting request) cost about a millisecond of the hop while a sandbox is busy.
    private final PoolingHttpClientConnectionManager connections = connections();
    private final CloseableHttpClient blocking = HttpClients.custom().setConnectionManager(connections)
            .disableAutomaticRetries().disableRedirectHandling().disableCookieManagement()
            .disableContentCompression().disableAuthCaching().build();
    // Jetty's, for WebSockets only.
    private final HttpClient client = new HttpClient(new HttpClientTransportOverHTTP());
    private final WebSocketClient webSockets;

    /** {@code scheme}: how nodes reach each other's APIs, as this node's own API is served (http or https). */
    public NodeRelay(NodeKey key, Function<String, Caller> vouchedCaller, Function<Caller, String> vouchable,
                     String scheme, Clock clock) {
        this.key = key;
        this.vouchedCaller = vouchedCaller;
        this.vouchable = vouchable;
        this.scheme = scheme;
        this.clock = clock;
        client.setConnectTimeout(5_000);
        // A relayed exec or stream may stay silent as long as its command does.
        client.setIdleTimeout(0);
        client.setMaxConnectionsPerDestination(512);
        client.setUserAgentField(null);
        client.setFollowRedirects(false);
        // Daemon threads: the client must never be what keeps a stopping server's JVM alive.
        var threads = new QueuedThreadPool();
        threads.setName("node-relay");
        threads.setDaemon(true);
        client.setExecutor(threads);
        client.setScheduler(new ScheduledExecutorScheduler("node-relay-scheduler", true));
        webSockets = new WebSocketClient(client);
        try {
            client.start();
            webSockets.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the client nodes relay through", e);
        }
    }

    @Override
    public Optional<Caller> vouched(String method, String target, String vouch) {
        if (vouch == null) {
            return Optional.empty();
        }
        String caller = key.verify(vouch, method, target, clock.instant()).orElseThrow(() ->
                ApiException.unauthenticated("the " + HEADER + " header does not verify: only nodes relay requests"));
        return Optional.of(vouchedCaller.apply(caller));
    }

    @Override
    public Reply forward(String address, Relayed request) {
        var out = new BasicClassicHttpRequest(request.method(), URI.create(scheme + "://" + address + request.target()));
        request.headers().forEach((name, value) -> {
            if (!NOT_SENT.contains(name)) {
                out.addHeader(name, value);
            }
        });
        out.addHeader(HEADER, key.vouch(request.method(), request.target(), vouchable.apply(request.caller()),
                clock.instant()));
        body(request).ifPresent(out::setEntity);
        ClassicHttpResponse response;
        try {
            response = open(out, request.stream() == null);
        } catch (ConnectException | ConnectTimeoutException e) {
            throw new ApiException(ErrorCode.NODE_UNAVAILABLE, "the node at " + address + " that runs this did "
                    + "not answer; it is back when that node is", Map.of("address", address));
        } catch (IOException e) {
            throw new ApiException(ErrorCode.BAD_GATEWAY, "the node at " + address + " broke off: " + e);
        }
        try {
            return reply(response);
        } catch (IOException e) {
            closeQuietly(response);
            throw new ApiException(ErrorCode.BAD_GATEWAY, "the node at " + address + " broke off: " + e);
        }
    }

    @Override
    public Reply forwardUpgrade(String address, Relayed request) {
        var uri = URI.create(scheme.replaceFirst("^http", "ws") + "://" + address + request.target());
        String vouch = key.vouch(request.method(), request.target(), vouchable.apply(request.caller()), clock.instant());
        var relay = new WebSocketRelay(() -> { });
        return Reply.upgrade(relay.to(webSockets, uri, (upgrade, onward) -> {
            onward.setSubProtocols(upgrade.getSubProtocols());
            request.headers().forEach((name, value) -> {
                if (!NOT_SENT.contains(name) && !name.startsWith("sec-websocket-")) {
                    onward.setHeader(name, value);
                }
            });
            onward.setHeader(HEADER, vouch);
        }, "the node at " + address + " that runs this did not take the WebSocket"));
    }

    @Override
    public <R> R placedHere(Supplier<R> work) {
        return LocalNode.placedHere(work);
    }

    private static Optional<HttpEntity> body(Relayed request) {
        if (request.stream() != null) {
            return Optional.of(new InputStreamEntity(request.stream(), -1, null));
        }
        return request.body().length == 0 ? Optional.empty() : Optional.of(new ByteArrayEntity(request.body(), null));
    }

    /** JSON comes back as the bytes it came in (the API writes them as they are); anything else streams through. */
    private static Reply reply(ClassicHttpResponse response) throws IOException {
        var headers = new LinkedHashMap<String, String>();
        for (Header field : response.getHeaders()) {
            String name = field.getName().toLowerCase(Locale.ROOT);
            if (RETURNED.contains(name) && !headers.containsKey(name)) {
                headers.put(name, field.getValue());
            }
        }
        var entity = response.getEntity();
        if (headers.getOrDefault("content-type", "").startsWith("application/json")) {
            byte[] json;
            try (response) {
                json = entity == null ? new byte[0] : EntityUtils.toByteArray(entity);
            }
            headers.remove("content-type"); // the API writes its own for JSON
            var raw = new Reply.RawJson(json);
            return new Reply(response.getCode(), raw, raw, Map.copyOf(headers));
        }
        Reply.Stream copy = out -> {
            try (response) {
                if (entity != null) {
                    entity.getContent().transferTo(out);
                }
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        };
        return new Reply(response.getCode(), copy, null, Map.copyOf(headers));
    }

    /**
     * Sends on a kept connection, and once more on a new one when the other node had closed the kept
     * one (it restarted, or was killed: a blocking client sees that only when it uses it) and the
     * body can be sent again. A node that died while answering then refuses the second: 503.
     */
    private ClassicHttpResponse open(BasicClassicHttpRequest out, boolean replayable) throws IOException {
        try {
            return blocking.executeOpen(null, out, null);
        } catch (NoHttpResponseException | SocketException e) {
            if (!replayable || e instanceof ConnectException) {
                throw e;
            }
            connections.closeIdle(TimeValue.ZERO_MILLISECONDS);
            return blocking.executeOpen(null, out, null);
        }
    }

    /**
     * Connections kept between nodes, checked for a close by the other side only after 2 s unused (a
     * check costs a read with a timeout; {@link #open} covers the rest).
     */
    private static PoolingHttpClientConnectionManager connections() {
        return PoolingHttpClientConnectionManagerBuilder.create().setMaxConnTotal(512).setMaxConnPerRoute(512)
                .setDefaultConnectionConfig(ConnectionConfig.custom().setConnectTimeout(Timeout.ofSeconds(5))
                        // A relayed exec or stream may stay silent as long as its command does.
                        .setSocketTimeout(Timeout.DISABLED)
                        .setValidateAfterInactivity(TimeValue.ofSeconds(2)).build())
                .build();
    }

    private static void closeQuietly(ClassicHttpResponse response) {
        try {
            response.close();
        } catch (IOException ignored) {
            // the connection goes with it
        }
    }

    /** Its clients' threads go (the WebSocket client's are not daemons: they would keep a JVM alive). */
    @Override
    public void close() {
        try {
            blocking.close();
            webSockets.stop();
            client.stop();
        } catch (Exception e) {
            throw new IllegalStateException("cannot stop the client nodes relay through", e);
        }
    }
}
