package dev.hearth.server.http;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.server.store.Ids;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Plain HTTP on a listener that speaks HTTPS: answered 308 to the same path over HTTPS, with the
 * error envelope ({@code https_required}) for API clients that do not follow redirects. The request
 * is never served, whatever credentials it carried. {@code origin} maps the request's Host header to
 * the HTTPS origin that serves it.
 */
public final class HttpsRedirect extends Handler.Wrapper {
    private final UnaryOperator<String> origin;

    public HttpsRedirect(Handler secure, UnaryOperator<String> origin) {
        super(secure);
        this.origin = origin;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (request.isSecure() && getHandler() != null) {
            return super.handle(request, response, callback);
        }
        String host = request.getHeaders().get(HttpHeader.HOST);
        String location = origin.apply(host == null ? "" : host) + request.getHttpURI().getPathQuery();
        var refusal = new ApiException(ErrorCode.HTTPS_REQUIRED, "this server speaks HTTPS only: use " + location,
                Map.of("location", location));
        String requestId = Ids.next();
        ApiHandler.write(response, callback, ErrorEnvelope.reply(refusal, requestId).header("Location", location),
                requestId);
        return true;
    }
}
