package dev.hearth.server.http;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One route: method, path template under /v1 (segments like {ws} bind path parameters), who may
 * call it, and whether an Idempotency-Key is required (creates) or merely honoured (other mutations).
 * A route that {@code streamsBody} reads its body as it arrives (file uploads, any size) and is
 * idempotent by itself (a PUT of the same bytes), so keys do not apply to it.
 */
public record Route(String method, String template, Scope scope, boolean keyRequired, boolean streamsBody,
                    Handler handler, Contract contract, Recall recall) {

    @FunctionalInterface
    public interface Handler {
        Reply handle(Exchange exchange);
    }

    /**
     * A create's answer for what it made, by id: how a retry under the same Idempotency-Key is
     * answered when the server died between making the resource and answering.
     */
    @FunctionalInterface
    public interface Recall {
        Reply recall(Exchange exchange, String resourceId);
    }

    Route(String method, String template, Scope scope, boolean keyRequired, boolean streamsBody, Handler handler,
          Contract contract) {
        this(method, template, scope, keyRequired, streamsBody, handler, contract, null);
    }

    Route with(Contract declared) {
        return new Route(method, template, scope, keyRequired, streamsBody, handler, declared, recall);
    }

    Route with(Recall recalled) {
        return new Route(method, template, scope, keyRequired, streamsBody, handler, contract, recalled);
    }

    public boolean mutation() {
        return !method.equals("GET");
    }

    /** Binds path parameters if {@code path} fits the template. */
    public Optional<Map<String, String>> match(List<String> segments) {
        var parts = templateSegments();
        if (parts.size() != segments.size()) {
            return Optional.empty();
        }
        var params = new LinkedHashMap<String, String>();
        for (int i = 0; i < parts.size(); i++) {
            String part = parts.get(i);
            if (part.startsWith("{")) {
                params.put(part.substring(1, part.length() - 1), segments.get(i));
            } else if (!part.equals(segments.get(i))) {
                return Optional.empty();
            }
        }
        return Optional.of(params);
    }

    private List<String> templateSegments() {
        return RouteTable.segments(template);
    }
}
