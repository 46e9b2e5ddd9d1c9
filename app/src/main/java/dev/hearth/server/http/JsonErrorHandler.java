package dev.hearth.server.http;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.server.store.Ids;
import java.util.Map;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Errors Jetty raises before a request reaches a handler (a malformed URI, a URI or headers too
 * large), on every listener: rendered as the same envelope, with a request id, never an HTML page or
 * a stack trace.
 */
public final class JsonErrorHandler extends ErrorHandler {
    /** Jetty writes an error body only for GET, POST and HEAD unless told otherwise: PATCH and DELETE got none. */
    @Override
    public boolean errorPageForMethod(String method) {
        return true;
    }

    @Override
    protected void generateResponse(Request request, Response response, int status, String message,
                                    Throwable cause, Callback callback) {
        var code = switch (status) {
            case 404 -> ErrorCode.NOT_FOUND;
            case 405 -> ErrorCode.METHOD_NOT_ALLOWED;
            case 413 -> ErrorCode.PAYLOAD_TOO_LARGE;
            case 414 -> ErrorCode.URI_TOO_LONG;
            case 415 -> ErrorCode.UNSUPPORTED_MEDIA_TYPE;
            case 431 -> ErrorCode.HEADERS_TOO_LARGE;
            default -> status >= 500 ? ErrorCode.INTERNAL : ErrorCode.INVALID_REQUEST;
        };
        String text = message == null || message.isBlank() ? "request rejected (HTTP " + status + ")" : message;
        String requestId = Ids.next();
        var reply = ApiHandler.errorReply(new ApiException(code, text, Map.of("http_status", status)), requestId);
        // The status is the code's own, so that a code always comes with the status the reference gives it
        // (Jetty's other refusals, a 408 or a 505, are the client's malformed request: 400).
        ApiHandler.write(response, callback, new Reply(code.status(), reply.body(), null, Map.of()), requestId);
    }
}
