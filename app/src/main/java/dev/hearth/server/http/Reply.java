package dev.hearth.server.http;

import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.hearth.server.store.Page;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.websocket.server.WebSocketCreator;

/**
 * What a handler answers: status and body, and the body to keep for idempotent replays (the same
 * body with secrets such as key files and passwords redacted).
 */
public record Reply(int status, Object body, Object replayBody, Map<String, String> headers) {

    /** A body written as it is produced (NDJSON exec output); never kept for idempotent replays. */
    @FunctionalInterface
    public interface Stream {
        void writeTo(OutputStream out) throws IOException;
    }

    public static Reply stream(String contentType, Stream body) {
        return new Reply(200, body, null, Map.of("Content-Type", contentType));
    }

    /** JSON as another node wrote it, passed on without being read (Jackson writes it as it is, too). */
    public record RawJson(byte[] bytes) {
        @JsonValue
        public RawValue value() {
            return new RawValue(new String(bytes, StandardCharsets.UTF_8));
        }
    }

    /** The answer is a WebSocket: the handler upgrades the connection with this creator. */
    public record Upgrade(WebSocketCreator creator) {
    }

    public static Reply upgrade(WebSocketCreator creator) {
        return new Reply(101, new Upgrade(creator), null, Map.of());
    }

    public boolean streaming() {
        return body instanceof Stream || body instanceof Upgrade;
    }

    public static Reply ok(Object body) {
        return new Reply(200, body, body, Map.of());
    }

    public static Reply status(int status, Object body) {
        return new Reply(status, body, body, Map.of());
    }

    public static Reply withReplay(int status, Object body, Object replayBody) {
        return new Reply(status, body, replayBody, Map.of());
    }

    public Reply header(String name, String value) {
        var h = new LinkedHashMap<>(headers);
        h.put(name, value);
        return new Reply(status, body, replayBody, Map.copyOf(h));
    }

    /** {@code {noun: value, operations: []}}, the shape of every single-resource answer. */
    public static Map<String, Object> one(String noun, Object value) {
        return one(noun, value, List.of());
    }

    /** {@code {noun: value, operations: [ids]}}: a resource and the operations to follow for it. */
    public static Map<String, Object> one(String noun, Object value, List<String> operations) {
        var body = new LinkedHashMap<String, Object>();
        body.put(noun, value);
        body.put("operations", operations);
        return body;
    }

    /** {@code {nouns: [...], next_cursor, has_more}}, the shape of every list answer. */
    public static Map<String, Object> page(String noun, Page<?> page) {
        var body = new LinkedHashMap<String, Object>();
        body.put(noun, page.items());
        body.put("next_cursor", page.nextCursor());
        body.put("has_more", page.hasMore());
        return body;
    }
}
