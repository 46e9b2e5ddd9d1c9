package dev.hearth.client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.net.http.HttpHeaders;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;

/**
 * The everyday requests on the JDK's {@link HttpURLConnection}: a CLI command answers in a fraction
 * of the time, since the JDK's {@code HttpClient} costs about 180 ms to start (its SSL context, its
 * selector thread) where this costs about 20 (bench/run CliBench). What it cannot send (PATCH, a body
 * on GET or DELETE) goes through the {@code HttpClient}, see {@link #carries}.
 */
final class Wire {
    /**
     * A request: method, headers and body (null for none). A body is small JSON: the connection
     * buffers it and sends its length, which also lets it read a 401's answer (in streaming mode it
     * throws instead).
     */
    record Call(String method, URI uri, Map<String, String> headers, byte[] body, boolean streaming) {
    }

    /** An answer whose body is read as it arrives; close it to let the connection be used again. */
    record Answer(int status, HttpHeaders headers, InputStream body) {
    }

    private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "DELETE");

    static {
        // A POST is never sent twice behind the caller's back (the JDK would, once, on a dropped
        // keep-alive connection); the caller's Idempotency-Key decides what a retry may do.
        System.setProperty("sun.net.http.retryPost", "false");
    }

    private final Optional<SSLContext> trust;

    Wire(Optional<SSLContext> trust) {
        this.trust = trust;
    }

    /** Whether this wire can send the call as it is. */
    static boolean carries(String method, boolean hasBody) {
        return METHODS.contains(method) && (!hasBody || method.equals("POST") || method.equals("PUT"));
    }

    Answer send(Call call) throws IOException {
        var connection = (HttpURLConnection) call.uri().toURL().openConnection(Proxy.NO_PROXY);
        if (connection instanceof HttpsURLConnection https) {
            trust.ifPresent(context -> https.setSSLSocketFactory(context.getSocketFactory()));
        }
        connection.setInstanceFollowRedirects(false);
        connection.setUseCaches(false);
        connection.setConnectTimeout(10_000);
        connection.setReadTimeout(call.streaming() ? 0 : 120_000);
        connection.setRequestMethod(call.method());
        call.headers().forEach(connection::setRequestProperty);
        if (call.body() != null) {
            connection.setDoOutput(true);
            try (OutputStream out = connection.getOutputStream()) {
                out.write(call.body());
            }
        }
        int status = connection.getResponseCode();
        InputStream body = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
        return new Answer(status, headers(connection), body == null ? new ByteArrayInputStream(new byte[0]) : body);
    }

    private static HttpHeaders headers(HttpURLConnection connection) {
        var fields = new LinkedHashMap<String, List<String>>();
        connection.getHeaderFields().forEach((name, values) -> {
            if (name != null) {
                fields.put(name, values);
            }
        });
        return HttpHeaders.of(fields, (name, value) -> true);
    }
}
