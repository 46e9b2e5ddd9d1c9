package dev.hearth.server.http;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.server.store.Ids;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Refuses a path with a {@code .} or {@code ..} segment (literal or percent-encoded) before anything
 * routes it, on every listener. Jetty resolves dot segments before a handler sees the decoded path,
 * so {@code DELETE /computers/X/checkpoints/..} would otherwise reach the route of the computer
 * itself. On the API an empty segment is refused too: it would shift every segment after it (a
 * computer's own server behind the router may give {@code //} a meaning, so there it passes).
 */
public final class PathGuard extends Handler.Wrapper {
    private final boolean refuseEmpty;

    private PathGuard(Handler handler, boolean refuseEmpty) {
        super(handler);
        this.refuseEmpty = refuseEmpty;
    }

    /** The API's and the operator's listeners: no dot segment, no empty segment. */
    public static PathGuard api(Handler handler) {
        return new PathGuard(handler, true);
    }

    /** The router: no dot segment; the rest is the computer's business. */
    public static PathGuard router(Handler handler) {
        return new PathGuard(handler, false);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        var problem = problem(request.getHttpURI().getPath(), refuseEmpty);
        if (problem.isEmpty()) {
            return super.handle(request, response, callback);
        }
        String requestId = Ids.next();
        ErrorEnvelope.write(response, callback, new ApiException(ErrorCode.INVALID_REQUEST, problem.get()), requestId);
        return true;
    }

    /** What is wrong with the raw (still encoded) path, if anything. */
    public static Optional<String> problem(String rawPath, boolean refuseEmpty) {
        if (rawPath == null || rawPath.isEmpty()) {
            return Optional.empty();
        }
        String[] segments = rawPath.split("/", -1);
        for (int i = 1; i < segments.length; i++) {
            String segment = decoded(segments[i]);
            if (segment.equals(".") || segment.equals("..")) {
                return Optional.of("the path has a '" + segment + "' segment; name a resource by its id or name "
                        + "(dot segments are refused, never resolved)");
            }
            if (refuseEmpty && segment.isEmpty() && i < segments.length - 1) {
                return Optional.of("the path has an empty segment ('//'); every segment must name something");
            }
        }
        return Optional.empty();
    }

    private static String decoded(String segment) {
        if (segment.indexOf('%') < 0) {
            return segment;
        }
        try {
            // Path segments keep '+' as it is: only percent escapes are decoded.
            return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return segment;
        }
    }
}
