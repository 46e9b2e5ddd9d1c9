package dev.hearth.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.JsonTrees;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;

/**
 * A small client of the Hearth API over HTTP: what the CLI uses and what the tests use, so both see
 * the API exactly as users do. {@link #send} answers any status; the verb methods throw
 * {@link ApiException} for error answers.
 */
public final class HearthClient {
    /** An answer: status, JSON body (null when empty) and headers. */
    public record Response(int status, JsonNode body, HttpHeaders headers) {
        public Optional<String> header(String name) {
            return headers.firstValue(name);
        }
    }

    private final Supplier<HttpClient> http;
    private final Wire wire;
    private final String baseUrl;
    private final TokenSource tokens;

    public HearthClient(String baseUrl, TokenSource tokens) {
        this(baseUrl, tokens, Optional.empty());
    }

    /** {@code trust}: the SSL context that verifies the server (default: the JDK's CAs). */
    public HearthClient(String baseUrl, TokenSource tokens, Optional<SSLContext> trust) {
        this(lazily(() -> http(trust)), new Wire(trust), baseUrl, tokens);
    }

    private static HttpClient http(Optional<SSLContext> trust) {
        // HTTP/1.1 is all the server speaks; the JDK's default (HTTP/2) would ask each new connection
        // to upgrade to h2c first.
        var builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10));
        trust.ifPresent(builder::sslContext);
        return builder.build();
    }

    public HearthClient(HttpClient http, String baseUrl, TokenSource tokens) {
        this(() -> http, new Wire(Optional.of(http.sslContext())), baseUrl, tokens);
    }

    private HearthClient(Supplier<HttpClient> http, Wire wire, String baseUrl, TokenSource tokens) {
        this.http = http;
        this.wire = wire;
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.tokens = tokens;
    }

    public String baseUrl() {
        return baseUrl;
    }

    /** The HTTP client, with its trust, for what this class does not do itself (WebSockets). */
    public HttpClient http() {
        return http.get();
    }

    public HearthClient withTokens(TokenSource other) {
        return new HearthClient(http, wire, baseUrl, other);
    }

    /** The JDK's HttpClient, made only when a call needs it (most CLI commands never do). */
    private static Supplier<HttpClient> lazily(Supplier<HttpClient> make) {
        var made = new AtomicReference<HttpClient>();
        return () -> made.updateAndGet(c -> c != null ? c : make.get());
    }

    public JsonNode get(String path) {
        return ok(send("GET", path, null, Map.of()));
    }

    /** A create: sends a fresh Idempotency-Key, as every create needs one. */
    public JsonNode create(String path, Object body) {
        return ok(send("POST", path, body, Map.of("Idempotency-Key", UUID.randomUUID().toString())));
    }

    public JsonNode post(String path, Object body) {
        return ok(send("POST", path, body, Map.of()));
    }

    public JsonNode patch(String path, Object body) {
        return ok(send("PATCH", path, body, Map.of()));
    }

    public JsonNode delete(String path) {
        return ok(send("DELETE", path, null, Map.of()));
    }

    // A redirect is an answer too: plain HTTP to an HTTPS server gets 308 https_required.
    private static JsonNode ok(Response response) {
        if (response.status() >= 300) {
            throw ApiException.fromResponse(response.status(), response.body());
        }
        return response.body();
    }

    /**
     * The URL of {@code path} under the base URL. A {@code .} or {@code ..} segment (an argument such
     * as {@code hearth checkpoints delete box ..}) is refused here, before anything is sent: resolved,
     * it would name the resource above the one meant.
     */
    private URI target(String path) {
        int query = path.indexOf('?');
        for (String segment : (query < 0 ? path : path.substring(0, query)).split("/")) {
            if (segment.equals(".") || segment.equals("..")) {
                throw new ApiException(ErrorCode.INVALID_REQUEST, "'" + segment + "' is not a name or an id");
            }
        }
        try {
            return new URI(baseUrl + path);
        } catch (URISyntaxException e) {
            throw new ApiException(ErrorCode.INVALID_REQUEST, "not a name or an id: " + e.getInput().substring(
                    Math.min(baseUrl.length(), e.getInput().length())) + " (" + e.getReason() + ")");
        }
    }

    /** Sends a request; {@code body} is serialized to JSON unless it is a String (sent as is). */
    public Response send(String method, String path, Object body, Map<String, String> headers) {
        if (Wire.carries(method, body != null)) {
            return read(baseUrl + path, () -> wired(method, path, headers, body == null ? null : bytes(body), false));
        }
        var request = HttpRequest.newBuilder(target(path)).timeout(Duration.ofSeconds(120));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        headers.forEach(request::setHeader);
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(bytes(body)));
        return json(request, path);
    }

    @FunctionalInterface
    private interface Sending {
        Wire.Answer send() throws IOException;
    }

    /** The whole answer of a call on the wire, as JSON; {@code target} names it in errors. */
    private Response read(String target, Sending call) {
        try {
            var answer = call.send();
            try (var in = answer.body()) {
                byte[] raw = in.readAllBytes();
                return new Response(answer.status(), raw.length == 0 ? null : parse(raw), answer.headers());
            }
        } catch (IOException e) {
            throw Trust.unreachable(target, e);
        }
    }

    /**
     * A call on the wire with the caller's token (a JSON body unless {@code headers} say otherwise),
     * sent once more with a fresh token after a 401 (see below).
     */
    private Wire.Answer wired(String method, String path, Map<String, String> headers, byte[] body,
                              boolean streaming) throws IOException {
        var all = new LinkedHashMap<>(headers);
        if (body != null) {
            all.putIfAbsent("Content-Type", "application/json");
        }
        tokens.token(this).ifPresent(t -> all.put("Authorization", "Bearer " + t));
        var uri = target(path);
        var answer = wire.send(new Wire.Call(method, uri, all, body, streaming));
        if (answer.status() == 401 && tokens.invalidate()) {
            answer.body().close();
            tokens.token(this).ifPresent(t -> all.put("Authorization", "Bearer " + t));
            answer = wire.send(new Wire.Call(method, uri, all, body, streaming));
        }
        return answer;
    }

    /** Sends with the caller's token and reads the answer as JSON. */
    private Response json(HttpRequest.Builder request, String path) {
        try {
            return response(authorized(request, HttpResponse.BodyHandlers.ofByteArray()));
        } catch (IOException e) {
            throw Trust.unreachable(baseUrl + path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Sends with the caller's token. A token the server refuses (401) that came from a cache (the
     * server was reset, the key rotated) is dropped and the request sent once more with a fresh one.
     */
    private <T> HttpResponse<T> authorized(HttpRequest.Builder request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        tokens.token(this).ifPresent(t -> request.setHeader("Authorization", "Bearer " + t));
        var response = http.get().send(request.build(), handler);
        if (response.statusCode() == 401 && tokens.invalidate()) {
            if (response.body() instanceof AutoCloseable body) {
                try {
                    body.close();
                } catch (Exception ignored) {
                    // only freeing the refused answer
                }
            }
            tokens.token(this).ifPresent(t -> request.setHeader("Authorization", "Bearer " + t));
            response = http.get().send(request.build(), handler);
        }
        return response;
    }

    /**
     * Sends a request whose answer is NDJSON and hands each line to {@code lines} as it arrives;
     * an error answer throws {@link ApiException}. A null body sends none.
     */
    public void streamLines(String method, String path, Object body, Consumer<JsonNode> lines) {
        if (Wire.carries(method, body != null)) {
            try {
                var answer = wired(method, path, Map.of("Accept", "application/x-ndjson"),
                        body == null ? null : bytes(body), true);
                relayLines(answer.status(), new BufferedReader(new InputStreamReader(answer.body(),
                        StandardCharsets.UTF_8)).lines(), lines);
            } catch (IOException | UncheckedIOException e) {
                throw Trust.unreachable(baseUrl, e);
            }
            return;
        }
        var request = HttpRequest.newBuilder(target(path)).header("Accept", "application/x-ndjson");
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofByteArray(bytes(body)));
        }
        try {
            var response = authorized(request, HttpResponse.BodyHandlers.ofLines());
            relayLines(response.statusCode(), response.body(), lines);
        } catch (IOException e) {
            throw Trust.unreachable(baseUrl, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Each line of an NDJSON answer, or the error it is. */
    private static void relayLines(int status, Stream<String> answer, Consumer<JsonNode> lines) {
        try (answer) {
            if (status >= 300) {
                String text = String.join("\n", answer.toList());
                throw ApiException.fromResponse(status, text.isEmpty() ? null : parse(text.getBytes()));
            }
            answer.filter(line -> !line.isBlank()).forEach(line -> lines.accept(parse(line.getBytes())));
        }
    }

    /**
     * Sends bytes as they are read (a file upload: {@code PUT .../files}); answers the JSON reply.
     * On the JDK's HttpClient, which reads the answer while it sends: a server that refuses a big
     * upload early (507) answers while the client is still writing, and the refusal must be seen.
     */
    public JsonNode upload(String path, String contentType, Supplier<InputStream> body) {
        var request = HttpRequest.newBuilder(target(path)).header("Content-Type", contentType)
                .PUT(HttpRequest.BodyPublishers.ofInputStream(body));
        return ok(json(request, path));
    }

    /** Opens a raw answer (a file's bytes, a tar) to read as it arrives; an error answer throws {@link ApiException}. */
    public InputStream download(String path) {
        try {
            var answer = wired("GET", path, Map.of(), null, true);
            if (answer.status() >= 300) {
                try (var in = answer.body()) {
                    byte[] raw = in.readAllBytes();
                    throw ApiException.fromResponse(answer.status(), raw.length == 0 ? null : parse(raw));
                }
            }
            return answer.body();
        } catch (IOException e) {
            throw Trust.unreachable(baseUrl, e);
        }
    }

    /** POSTs {@code body} to {@code uri} without a token (sign-in calls: the token exchange, a refresh). */
    public Response postUnauthenticated(URI uri, String contentType, byte[] body) {
        return read(uri.toString(), () -> wire.send(new Wire.Call("POST", uri, Map.of("Content-Type", contentType), body, false)));
    }

    private static Response response(HttpResponse<byte[]> answer) {
        byte[] raw = answer.body();
        return new Response(answer.statusCode(), raw.length == 0 ? null : parse(raw), answer.headers());
    }

    private static JsonNode parse(byte[] raw) {
        try {
            return JsonTrees.read(raw);
        } catch (IOException e) {
            return TextNode.valueOf(new String(raw, StandardCharsets.UTF_8));
        }
    }

    private static byte[] bytes(Object body) {
        if (body instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        return JsonTrees.bytes(body);
    }
}
