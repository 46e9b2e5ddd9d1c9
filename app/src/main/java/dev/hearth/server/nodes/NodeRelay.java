package dev.hearth.server.nodes;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Json;
import dev.hearth.server.http.Relay;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.WebSocketRelay;
import dev.hearth.server.tenancy.Caller;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamRequestContent;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpField;
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
    // Jetty's client: a relayed request through the JDK's HttpClient cost ~2.5 ms more (its
    // selector thread and async pipeline), most of the hop between nodes.
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
        var out = client.newRequest(URI.create(scheme + "://" + address + request.target())).method(request.method())
                .idleTimeout(0, TimeUnit.MILLISECONDS);
        body(request).ifPresent(out::body);
        out.headers(h -> {
            request.headers().forEach((name, value) -> {
                if (!NOT_SENT.contains(name)) {
                    h.put(name, value);
                }
            });
            h.put(HEADER, key.vouch(request.method(), request.target(), vouchable.apply(request.caller()),
                    clock.instant()));
        });
        var listener = new InputStreamResponseListener();
        out.send(listener);
        try {
            return reply(listener.get(1, TimeUnit.DAYS), listener.getInputStream());
        } catch (ExecutionException | TimeoutException e) {
            out.abort(e);
            if (e.getCause() instanceof ConnectException || e.getCause() instanceof SocketTimeoutException) {
                throw new ApiException(ErrorCode.NODE_UNAVAILABLE, "the node at " + address + " that runs this did "
                        + "not answer; it is back when that node is", Map.of("address", address));
            }
            throw new ApiException(ErrorCode.BAD_GATEWAY, "the node at " + address + " broke off: "
                    + (e.getCause() != null ? e.getCause() : e));
        } catch (IOException e) {
            throw new ApiException(ErrorCode.BAD_GATEWAY, "the node at " + address + " broke off: " + e.getMessage());
        } catch (InterruptedException e) {
            out.abort(e);
            Thread.currentThread().interrupt();
            throw new ApiException(ErrorCode.NODE_UNAVAILABLE, "interrupted while asking the node at " + address);
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

    private static Optional<Request.Content> body(Relayed request) {
        if (request.stream() != null) {
            return Optional.of(new InputStreamRequestContent(request.stream()));
        }
        return request.body().length == 0 ? Optional.empty() : Optional.of(new BytesRequestContent(request.body()));
    }

    private static Reply reply(Response response, InputStream body) throws IOException {
        var headers = new LinkedHashMap<String, String>();
        for (HttpField field : response.getHeaders()) {
            String name = field.getLowerCaseName();
            if (RETURNED.contains(name) && !headers.containsKey(name)) {
                headers.put(name, field.getValue());
            }
        }
        if (headers.getOrDefault("content-type", "").startsWith("application/json")) {
            JsonNode json;
            try (body) {
                json = Json.mapper().readTree(body);
            }
            headers.remove("content-type"); // the API writes its own for JSON
            return new Reply(response.getStatus(), json, json, Map.copyOf(headers));
        }
        Reply.Stream copy = out -> {
            try (body) {
                body.transferTo(out);
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        };
        return new Reply(response.getStatus(), copy, null, Map.copyOf(headers));
    }

    /** Its clients' threads go (the WebSocket client's are not daemons: they would keep a JVM alive). */
    @Override
    public void close() {
        try {
            webSockets.stop();
            client.stop();
        } catch (Exception e) {
            throw new IllegalStateException("cannot stop the client nodes relay through", e);
        }
    }
}
