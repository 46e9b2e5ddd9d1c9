package dev.hearth.server.e2b;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** Answers as E2B's API gives them: JSON, 204 without a body, and its error shape. */
final class E2bReply {
    private E2bReply() {
    }

    static void json(Response response, Callback callback, int status, JsonNode body) {
        byte[] bytes;
        try {
            bytes = E2bJson.MAPPER.writeValueAsBytes(body);
        } catch (IOException e) {
            callback.failed(e);
            return;
        }
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, bytes.length);
        response.write(true, ByteBuffer.wrap(bytes), callback);
    }

    /** A list and, unless it is the last page, {@code X-Next-Token}. */
    static void page(Response response, Callback callback, Sandboxes.Listed page) {
        if (page.next() != null) {
            response.getHeaders().put("X-Next-Token", page.next());
        }
        json(response, callback, 200, page.sandboxes());
    }

    /** 204: openapi-fetch reads no body from it (an empty 200 would fail to parse). */
    static void empty(Response response, Callback callback) {
        response.setStatus(204);
        response.write(true, ByteBuffer.allocate(0), callback);
    }

    static void error(Response response, Callback callback, int status, String message) {
        error(response, callback, new E2bException(status, message));
    }

    static void error(Response response, Callback callback, E2bException e) {
        var body = E2bJson.object();
        body.put("message", e.getMessage());
        if (e.sandboxId() != null) {
            body.put("sandboxId", e.sandboxId());
        }
        body.put("code", e.status());
        json(response, callback, e.status(), body);
    }
}
