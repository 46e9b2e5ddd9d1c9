package dev.hearth.server.http;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/** The route table. Features add their routes at start-up; lookups are a scan (a few dozen routes). */
public final class RouteTable {
    public record Match(Route route, Map<String, String> params) {
    }

    private final List<Route> routes = new ArrayList<>();

    public void add(String method, String template, Scope scope, Route.Handler handler) {
        routes.add(new Route(method, template, scope, false, false, handler));
    }

    /** A route that reads its body as a stream ({@link Exchange#bodyStream()}), never whole. */
    public void streaming(String method, String template, Scope scope, Route.Handler handler) {
        routes.add(new Route(method, template, scope, false, true, handler));
    }

    /** A create: the Idempotency-Key header is required. */
    public void create(String template, Scope scope, Route.Handler handler) {
        routes.add(new Route("POST", template, scope, true, false, handler));
    }

    public List<Route> routes() {
        return List.copyOf(routes);
    }

    /** The route for the request, or a 404/405 error. */
    public Match find(String method, String path) {
        var segments = segments(path);
        var allowed = new TreeSet<String>();
        for (var route : routes) {
            Optional<Map<String, String>> params = route.match(segments);
            if (params.isPresent()) {
                if (route.method().equals(method)) {
                    return new Match(route, params.get());
                }
                allowed.add(route.method());
            }
        }
        if (allowed.isEmpty()) {
            throw ApiException.notFound("route " + path);
        }
        throw new ApiException(ErrorCode.METHOD_NOT_ALLOWED,
                method + " is not allowed on " + path + "; allowed: " + String.join(", ", allowed),
                Map.of("allowed", List.copyOf(allowed)));
    }

    static List<String> segments(String path) {
        return Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).toList();
    }
}
