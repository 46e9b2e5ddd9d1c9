package dev.hearth.server.metrics;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** The operator listener ({@code --metrics-listen}): {@code GET /metrics}, nothing else. */
public final class MetricsHandler extends Handler.Abstract {
    private final ServerMetrics metrics;

    public MetricsHandler(ServerMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (!request.getHttpURI().getPath().equals("/metrics") || !request.getMethod().equals("GET")) {
            response.setStatus(404);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
            response.write(true, ByteBuffer.wrap("only GET /metrics here\n".getBytes(StandardCharsets.UTF_8)), callback);
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
