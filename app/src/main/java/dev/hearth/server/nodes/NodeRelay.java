package dev.hearth.server.nodes;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Json;
import dev.hearth.server.http.Relay;
import dev.hearth.server.http.Reply;
import dev.hearth.server.tenancy.Caller;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Sends requests on to the node that runs what they name, signed with the {@link NodeKey}, and
 * answers with that node's answer: JSON as JSON, anything else (exec output, file bytes) streamed
 * through as it arrives.
 */
public final class NodeRelay implements Relay {
    // Hop-by-hop, set by the client itself, or replaced by the vouch: never copied to the next node.
    private static final Set<String> NOT_SENT = Set.of("authorization", "connection", "content-length", "expect",
            "host", "upgrade", "keep-alive", "te", "trailer", "transfer-encoding", "proxy-authorization", HEADER);
    private static final Set<String> RETURNED = Set.of("content-type", "content-disposition", "retry-after",
            "location", "x-request-id");

    private final NodeKey key;
    private final Function<String, Caller> vouchedCaller;
    private final Function<Caller, String> vouchable;
    private final String scheme;
    private final Clock clock;
    // HTTP/1.1: the APIs speak nothing else, and the default (HTTP/2) offers an h2c upgrade on every request.
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NEVER).build();

    /** {@code scheme}: how nodes reach each other's APIs, as this node's own API is served (http or https). */
    public NodeRelay(NodeKey key, Function<String, Caller> vouchedCaller, Function<Caller, String> vouchable,
                     String scheme, Clock clock) {
        this.key = key;
        this.vouchedCaller = vouchedCaller;
        this.vouchable = vouchable;
        this.scheme = scheme;
        this.clock = clock;
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
        var builder = HttpRequest.newBuilder(URI.create(scheme + "://" + address + request.target()))
                .method(request.method(), body(request));
        request.headers().forEach((name, value) -> {
            if (!NOT_SENT.contains(name)) {
                builder.header(name, value);
            }
        });
        builder.header(HEADER, key.vouch(request.method(), request.target(), vouchable.apply(request.caller()),
                clock.instant()));
        try {
            return reply(client.send(builder.build(), HttpResponse.BodyHandlers.ofInputStream()));
        } catch (ConnectException | HttpTimeoutException e) {
            throw new ApiException(ErrorCode.NODE_UNAVAILABLE, "the node at " + address + " that runs this did not "
                    + "answer; it is back when that node is", Map.of("address", address));
        } catch (IOException e) {
            throw new ApiException(ErrorCode.BAD_GATEWAY, "the node at " + address + " broke off: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(ErrorCode.NODE_UNAVAILABLE, "interrupted while asking the node at " + address);
        }
    }

    @Override
    public <R> R placedHere(Supplier<R> work) {
        return LocalNode.placedHere(work);
    }

    @Override
    public boolean placedOnAFullNode(String code, Map<String, Object> details) {
        return ErrorCode.NODE_UNAVAILABLE.code().equals(code) && LocalNode.wasFull(details);
    }

    private static HttpRequest.BodyPublisher body(Relayed request) {
        if (request.stream() != null) {
            return HttpRequest.BodyPublishers.ofInputStream(request::stream);
        }
        return request.body().length == 0 ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(request.body());
    }

    private static Reply reply(HttpResponse<InputStream> response) throws IOException {
        var headers = new LinkedHashMap<String, String>();
        response.headers().map().forEach((name, values) -> {
            if (RETURNED.contains(name.toLowerCase(Locale.ROOT)) && !values.isEmpty()) {
                headers.put(name.toLowerCase(Locale.ROOT), values.getFirst());
            }
        });
        if (headers.getOrDefault("content-type", "").startsWith("application/json")) {
            JsonNode body;
            try (var in = response.body()) {
                body = Json.mapper().readTree(in);
            }
            headers.remove("content-type"); // the API writes its own for JSON
            return new Reply(response.statusCode(), body, body, Map.copyOf(headers));
        }
        Reply.Stream copy = out -> {
            try (var in = response.body()) {
                in.transferTo(out);
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        };
        return new Reply(response.statusCode(), copy, null, Map.copyOf(headers));
    }
}
