package dev.hearth.server.http;

import dev.hearth.server.tenancy.Caller;
import java.io.InputStream;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Requests between nodes: a request for a resource another node runs is sent on to that node, which
 * answers it as if asked itself. The receiving node takes the caller the sending node vouches for
 * in the {@value #HEADER} header, instead of a token (tokens are made for one node's URL).
 */
public interface Relay {
    String HEADER = "hearth-relayed-for";

    /** The caller another node vouches for; empty without the header; 401 for one that does not verify. */
    Optional<Caller> vouched(String method, String target, String vouch);

    /** The answer of the node at {@code address} to this request. */
    Reply forward(String address, Relayed request);

    /**
     * A WebSocket (an interactive terminal) for a resource of the node at {@code address}: the
     * client's is upgraded here and relayed, message by message, to one opened there.
     */
    Reply forwardUpgrade(String address, Relayed request);

    /** Serves a relayed request: what it creates was placed on this node by the node that relayed it. */
    <R> R placedHere(Supplier<R> work);

    /**
     * In an error's details, and as the value of {@link #PLACEMENT} on its answer: a create placed on a
     * node that racing creates filled meanwhile, which placement then tries again.
     */
    String FULL = "full";
    String PLACEMENT = "Hearth-Placement";

    /** A request as it arrived here: {@code target} is the raw path and query; one of body and stream is used. */
    record Relayed(String method, String target, Map<String, String> headers, Caller caller, byte[] body,
                   InputStream stream) {
    }

    /** One node: nothing is ever relayed. */
    Relay NONE = new Relay() {
        @Override
        public Optional<Caller> vouched(String method, String target, String vouch) {
            return Optional.empty();
        }

        @Override
        public Reply forward(String address, Relayed request) {
            throw new IllegalStateException("a single node relays nothing");
        }

        @Override
        public Reply forwardUpgrade(String address, Relayed request) {
            throw new IllegalStateException("a single node relays nothing");
        }

        @Override
        public <R> R placedHere(Supplier<R> work) {
            return work.get();
        }
    };
}
