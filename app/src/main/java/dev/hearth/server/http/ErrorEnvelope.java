package dev.hearth.server.http;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The one error envelope, {@code {error: {code, message, details, request_id}}}, wherever an error
 * is answered: the API, Jetty's own refusals, the computer router, and lines of streams.
 */
public final class ErrorEnvelope {
    /** A detail that also becomes the {@code Retry-After} header: whole seconds until a retry may succeed. */
    public static final String RETRY_AFTER = "retry_after_seconds";

    private ErrorEnvelope() {
    }

    /** The envelope of an error, as a body or a line of a stream. */
    public static Map<String, Object> of(ApiException e, String requestId) {
        var error = new LinkedHashMap<String, Object>();
        error.put("code", e.code());
        error.put("message", e.getMessage());
        error.put("details", e.details() == null ? Map.of() : e.details());
        error.put("request_id", requestId);
        return Map.of("error", error);
    }

    static Reply reply(ApiException e, String requestId) {
        var reply = Reply.status(e.status(), of(e, requestId));
        if (e.is(ErrorCode.UNAUTHENTICATED)) {
            reply = reply.header("WWW-Authenticate", "Bearer error=\"invalid_token\"");
        }
        if (e.is(ErrorCode.NODE_UNAVAILABLE) && e.details() != null && Boolean.TRUE.equals(e.details().get(Relay.FULL))) {
            reply = reply.header(Relay.PLACEMENT, Relay.FULL);
        }
        if (e.details() != null && e.details().get(RETRY_AFTER) instanceof Number seconds) {
            reply = reply.header("Retry-After", Long.toString(Math.max(1, seconds.longValue())));
        }
        return reply;
    }

    /** Answers the error as JSON with its status and the {@code X-Request-Id} header. */
    public static void write(Response response, Callback callback, ApiException e, String requestId) {
        ApiHandler.write(response, callback, reply(e, requestId), requestId);
    }
}
