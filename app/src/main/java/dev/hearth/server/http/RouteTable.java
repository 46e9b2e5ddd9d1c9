package dev.hearth.server.http;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.server.store.PageRequest;
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

    public Declaring add(String method, String template, Scope scope, Route.Handler handler) {
        return added(new Route(method, template, scope, false, false, handler, Contract.UNDECLARED));
    }

    /** A route that reads its body as a stream ({@link Exchange#bodyStream()}), never whole. */
    public Declaring streaming(String method, String template, Scope scope, Route.Handler handler) {
        return added(new Route(method, template, scope, false, true, handler, Contract.UNDECLARED));
    }

    /** A create: the Idempotency-Key header is required; it answers 201 unless declared otherwise. */
    public Declaring create(String template, Scope scope, Route.Handler handler) {
        return added(new Route("POST", template, scope, true, false, handler, Contract.UNDECLARED.withStatuses(201)));
    }

    private Declaring added(Route route) {
        routes.add(route);
        return new Declaring(routes.size() - 1);
    }

    /** Declares, at registration, what the route just added takes and answers (see {@link Contract}). */
    public final class Declaring {
        private final int index;

        private Declaring(int index) {
            this.index = index;
        }

        private Declaring change(java.util.function.UnaryOperator<Contract> change) {
            var route = routes.get(index);
            routes.set(index, route.with(change.apply(route.contract())));
            return this;
        }

        /** How a retry of this create is answered when the server died after making the resource (see {@link Route.Recall}). */
        public Declaring recalls(Route.Recall recall) {
            routes.set(index, routes.get(index).with(recall));
            return this;
        }

        public Declaring summary(String text) {
            return change(c -> c.withSummary(text));
        }

        public Declaring takes(Contract.Shape body) {
            return change(c -> c.withBody(new Contract.Body.Json(body, true)));
        }

        public Declaring takes(Class<?> body) {
            return takes(Contract.of(body));
        }

        /** A body that may be left out (the defaults apply). */
        public Declaring mayTake(Class<?> body) {
            return change(c -> c.withBody(new Contract.Body.Json(Contract.of(body), false)));
        }

        /** A request body as a user would send it (JSON text), shown in the OpenAPI document. */
        public Declaring example(String json) {
            return change(c -> c.withExample(json));
        }

        public Declaring takesJsonOrForm(Class<?> body) {
            return change(c -> c.withBody(new Contract.Body.JsonOrForm(Contract.of(body))));
        }

        public Declaring takesBytes(String mediaType) {
            return change(c -> c.withBody(new Contract.Body.Bytes(mediaType)));
        }

        public Declaring answers(Contract.Shape json) {
            return answers(new Contract.Answer.Json(json));
        }

        public Declaring answers(Contract.Answer answer) {
            return change(c -> c.withAnswer(answer));
        }

        /** The success statuses, when not only 200 (or 201 for a create). */
        public Declaring statuses(Integer... statuses) {
            return change(c -> c.withStatuses(statuses));
        }

        public Declaring query(String name, String type, String description) {
            return change(c -> c.withParam(new Contract.Param(name, type, description)));
        }

        public Declaring paged() {
            return query("limit", "integer", "items per page, 1 to " + PageRequest.MAX_LIMIT + " (default "
                    + PageRequest.DEFAULT_LIMIT + ")")
                    .query("cursor", "string", "next_cursor of the previous page");
        }
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
