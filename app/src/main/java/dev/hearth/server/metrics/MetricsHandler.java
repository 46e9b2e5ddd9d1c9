package dev.hearth.server.metrics;

import dev.hearth.api.Json;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The operator listener ({@code --metrics-listen}): {@code GET /metrics}, and {@code GET /nodes}
 * (every node sharing the store, as JSON), nothing else.
 */
public final class MetricsHandler extends Handler.Abstract {
    private final ServerMetrics metrics;
    private final Supplier<List<?>> nodes;

    public MetricsHandler(ServerMetrics metrics, Supplier<List<?>> nodes) {
        this.metrics = metrics;
        this.nodes = nodes;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = request.getHttpURI().getPath();
        if (!request.getMethod().equals("GET") || !(path.equals("/metrics") || path.equals("/nodes"))) {
            response.setStatus(404);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
            response.write(true, ByteBuffer.wrap("only GET /metrics and GET /nodes here\n"
                    .getBytes(StandardCharsets.UTF_8)), callback);
            return true;
        }
        if (path.equals("/nodes")) {
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            response.write(true, ByteBuffer.wrap(Json.mapper().writeValueAsBytes(Map.of("nodes", nodes.get()))),
                    callback);
            return true;
        }
        var body = new ByteArrayOutputStream();
        metrics.scrape(body);
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, metrics.contentType());
        response.write(true, ByteBuffer.wrap(body.toByteArray()), callback);
        return true;
    }
}
