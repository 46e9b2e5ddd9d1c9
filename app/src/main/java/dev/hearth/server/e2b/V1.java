package dev.hearth.server.e2b;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamRequestContent;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

/**
 * Hearth's {@code /v1} API on this node, over loopback: what the E2B facade is a client of. It trusts
 * the listener's certificate whatever name it carries: it is this process's own listener, reached
 * on an address of this host. Answers are read whole as JSON, or streamed for output and files.
 */
final class V1 implements AutoCloseable {
    private static final Duration HEAD = Duration.ofSeconds(120);
    private final HttpClient http;
    private final String base;

    /** {@code base}: the scheme, loopback address and port of this node's API, with {@code /v1}. */
    V1(String base) {
        this.base = base;
        var connector = new ClientConnector();
        if (base.startsWith("https:")) {
            var tls = new SslContextFactory.Client(true);
            tls.setEndpointIdentificationAlgorithm(null);
            connector.setSslContextFactory(tls);
        }
        http = new HttpClient(new org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP(connector));
        http.setConnectTimeout(5_000);
        http.setIdleTimeout(300_000);
        http.setMaxConnectionsPerDestination(512);
        http.setUserAgentField(null);
        http.setFollowRedirects(false);
        var threads = new QueuedThreadPool();
        threads.setName("e2b-v1");
        threads.setDaemon(true);
        http.setExecutor(threads);
        http.setScheduler(new ScheduledExecutorScheduler("e2b-v1-scheduler", true));
        try {
            http.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the E2B facade's client", e);
        }
    }

    /** A JSON answer: its status and body (null if none). */
    record Answer(int status, JsonNode body) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        /** The answer's error as E2B's: the same status, Hearth's message. */
        E2bException failure() {
            String message = body == null ? "HTTP " + status : body.path("error").path("message").asText("HTTP " + status);
            return new E2bException(status, message);
        }

        /** This answer if it succeeded; its error otherwise. */
        JsonNode orThrow() {
            if (!ok()) {
                throw failure();
            }
            return body;
        }
    }

    Request request(String method, String path, String authorization) {
        return http.newRequest(base + path).method(method).timeout(HEAD.toMillis(), TimeUnit.MILLISECONDS)
                .headers(h -> h.put(HttpHeader.AUTHORIZATION, authorization));
    }

    /** A request with a JSON body (null: none); creates carry a fresh Idempotency-Key. */
    Answer json(String method, String path, String authorization, Object body) {
        var request = request(method, path, authorization);
        if (body != null) {
            try {
                request.body(new BytesRequestContent("application/json", Json.mapper().writeValueAsBytes(body)));
            } catch (IOException e) {
                throw new IllegalArgumentException(e);
            }
        }
        if (method.equals("POST")) {
            request.headers(h -> h.put("Idempotency-Key", UUID.randomUUID().toString()));
        }
        return send(request);
    }

    Answer get(String path, String authorization) {
        return json("GET", path, authorization, null);
    }

    /** Bytes up (a file), the answer JSON. */
    Answer upload(String method, String path, String authorization, InputStream body) {
        return upload(method, path, authorization, Map.of(), body);
    }

    /** The same with more headers (a file's X-Metadata-*). */
    Answer upload(String method, String path, String authorization, Map<String, String> headers, InputStream body) {
        var request = request(method, path, authorization);
        request.headers(h -> headers.forEach(h::put));
        return send(request.body(new InputStreamRequestContent("application/octet-stream", body, 128 * 1024)));
    }

    private Answer send(Request request) {
        try (var stream = open(request)) {
            byte[] bytes = stream.body().readAllBytes();
            JsonNode json = bytes.length == 0 ? null : Json.mapper().readTree(bytes);
            return new Answer(stream.status(), json);
        } catch (IOException e) {
            throw unavailable(e);
        }
    }

    /** A streamed answer: status, the headers the facade reads, and the body, which the caller closes. */
    record Stream(int status, Map<String, String> headers, long length, InputStream body, Request request)
            implements AutoCloseable {
        @Override
        public void close() throws IOException {
            body.close();
        }

        void abort() {
            request.abort(new IOException("the E2B client went away"));
        }
    }

    /** Sends and waits for the head; the caller reads and closes the body. */
    Stream open(Request request) {
        var listener = new InputStreamResponseListener();
        request.send(listener);
        try {
            var response = listener.get(HEAD.toMillis(), TimeUnit.MILLISECONDS);
            var headers = new java.util.HashMap<String, String>();
            for (String name : new String[] {"content-type"}) {
                String value = response.getHeaders().get(name);
                if (value != null) {
                    headers.put(name, value);
                }
            }
            return new Stream(response.getStatus(), headers,
                    response.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH), listener.getInputStream(), request);
        } catch (ExecutionException | TimeoutException e) {
            request.abort(e);
            throw unavailable(e.getCause() != null ? e.getCause() : e);
        } catch (InterruptedException e) {
            request.abort(e);
            Thread.currentThread().interrupt();
            throw unavailable(e);
        }
    }

    /** Opens a long answer (followed output, a watch): no time limit but its caller's. */
    Stream follow(String path, String authorization) {
        return open(request("GET", path, authorization).timeout(30, TimeUnit.DAYS).idleTimeout(30, TimeUnit.DAYS));
    }

    private static E2bException unavailable(Throwable cause) {
        return new E2bException(503, "Hearth's API did not answer: " + cause.getMessage());
    }

    @Override
    public void close() throws Exception {
        http.stop();
    }
}
