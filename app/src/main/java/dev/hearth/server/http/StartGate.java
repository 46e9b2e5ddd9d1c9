package dev.hearth.server.http;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.server.store.Ids;
import java.util.Map;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Keeps a listener shut while {@code hearth serve} starts: until the store and what runs are
 * reconciled (sandboxes, networks, disks and firewall rules no computer owns swept away), every
 * request answers 503 {@code starting} with {@code Retry-After}, {@code /health} included, so that
 * nothing is created that the start-up sweep would then take for a leftover.
 */
public final class StartGate {
    private volatile boolean open;

    /** Lets requests through from now on. */
    public void open() {
        open = true;
    }

    public boolean isOpen() {
        return open;
    }

    /** {@code handler}, behind this gate. */
    public Handler guard(Handler handler) {
        return new Handler.Wrapper(handler) {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                if (open) {
                    return super.handle(request, response, callback);
                }
                refuse(response, callback);
                return true;
            }
        };
    }

    private static void refuse(Response response, Callback callback) {
        var starting = new ApiException(ErrorCode.STARTING, "hearth serve is starting: it is reconciling its "
                + "computers and databases with the store; retry in a moment",
                Map.of("status", "starting", ErrorEnvelope.RETRY_AFTER, 1));
        String requestId = Ids.next();
        ErrorEnvelope.write(response, callback, starting, requestId);
    }
}
