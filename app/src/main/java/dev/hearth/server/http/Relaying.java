package dev.hearth.server.http;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.server.limits.RateLimits;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How the API sends on what another node runs: a request dispatched here that answers 421 goes to
 * the node it names, and a request for a resource another node answered for lately goes there at
 * once ({@link Whereabouts}).
 */
final class Relaying {
    private final Relay relay;
    private final Guard guard;
    private final RateLimits rates;
    private final Whereabouts whereabouts = new Whereabouts();

    Relaying(Relay relay, Guard guard, RateLimits rates) {
        this.relay = relay;
        this.guard = guard;
        this.rates = rates;
    }

    /**
     * Answers here ({@code dispatch}), or relays to the node a 421 names (once: a node that was
     * asked by another answers itself). When that node answers 421 in turn, what the request names
     * moved on meanwhile (a drain): it is asked again here, once, unless its body was already
     * streamed away. A WebSocket is relayed message by message.
     */
    Reply dispatchOrRelay(Supplier<Reply> dispatch, Relay.Relayed relayed, String resource) {
        for (int attempt = 1; ; attempt++) {
            try {
                return dispatch.get();
            } catch (ApiException e) {
                if (!e.is(ErrorCode.WRONG_NODE)) {
                    throw e;
                }
                String address = String.valueOf(e.details().get("address"));
                if (relayed.headers().containsKey("upgrade")) {
                    return relay.forwardUpgrade(address, relayed);
                }
                var reply = relay.forward(address, relayed);
                if (reply.status() != ErrorCode.WRONG_NODE.status() || attempt == 2 || relayed.stream() != null) {
                    if (resource != null && reply.status() < 500) {
                        whereabouts.remember(resource, address);
                    }
                    return reply;
                }
            }
        }
    }

    /**
     * A request for a resource another node answered for lately goes there at once: the caller's
     * token is checked here (its key or session at most every few seconds), and that node checks
     * the rest itself (the caller again, access, the resource). Empty when there is no such node, or
     * it no longer runs the resource, or does not answer: the request is then served as any other.
     */
    Optional<Reply> atOnce(String resource, Relay.Relayed unsigned) {
        var address = whereabouts.of(resource);
        if (address.isEmpty()) {
            return Optional.empty();
        }
        var caller = guard.authenticateToRelay(unsigned.headers().get("authorization"));
        rates.request(caller.id());
        try {
            var reply = relay.forward(address.get(), new Relay.Relayed(unsigned.method(), unsigned.target(),
                    unsigned.headers(), caller, unsigned.body(), null));
            if (reply.status() != ErrorCode.WRONG_NODE.status()) {
                return Optional.of(reply);
            }
        } catch (ApiException e) {
            // Not answering there (it never got the request): it may be back elsewhere.
            if (!e.is(ErrorCode.NODE_UNAVAILABLE)) {
                throw e;
            }
        }
        whereabouts.forget(resource);
        return Optional.empty();
    }

    /** The resource a request names, as {@link Whereabouts} keeps it: its reference and the workspace asked. */
    static String resource(Route route, Map<String, String> params, Map<String, List<String>> query) {
        if (!(route.scope() instanceof Scope.OfResource resource)) {
            return null;
        }
        return resource.param() + ":" + params.get(resource.param()) + "?"
                + Exchange.single(query, "workspace").orElse("");
    }
}
