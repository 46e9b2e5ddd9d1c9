package dev.hearth.server.nodes;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/**
 * This process's node: the name its rows carry, and the answer to a request for something that
 * lives on another node (which this node neither runs nor may touch).
 */
public final class LocalNode {
    private final String name;
    private final Jdbi jdbi;
    private final NodeStore store;
    private final Clock clock;

    public LocalNode(String name, Jdbi jdbi, NodeStore store, Clock clock) {
        this.name = name;
        this.jdbi = jdbi;
        this.store = store;
        this.clock = clock;
    }

    public String name() {
        return name;
    }

    /** Every node sharing the store, as {@link NodeStore#all} reads them now. */
    public List<Node> all() {
        return jdbi.withHandle(h -> store.all(h, clock.instant()));
    }

    public boolean owns(String node) {
        return name.equals(node);
    }

    /** Returns unless an operator is draining this node: then 503 node_unavailable, since it takes no new work. */
    public void requireTakingWork() {
        if (jdbi.withHandle(h -> store.asked(h, name)).orElse(NodeState.UP) == NodeState.DRAINING) {
            throw new ApiException(ErrorCode.NODE_UNAVAILABLE, "node " + name + " is draining: it takes no new "
                    + "computers or databases; create them through another node", Map.of("node", name));
        }
    }

    /**
     * Returns when {@code node} is this one. Otherwise throws where {@code what} is: 503
     * node_unavailable while its node is down (it answers again when that node is back), or 421
     * wrong_node with the address of the node to ask.
     */
    public void requireHere(String what, String node) {
        if (owns(node)) {
            return;
        }
        var found = jdbi.withHandle(h -> store.find(h, node, clock.instant()));
        if (found.isEmpty() || found.get().isDown()) {
            throw new ApiException(ErrorCode.NODE_UNAVAILABLE, what + " is on node " + node
                    + ", which is down; it is back when that node is", Map.of("node", node));
        }
        throw new ApiException(ErrorCode.WRONG_NODE, what + " is on node " + node + "; send this request to "
                + "that node's API at " + found.get().address(), Map.of("node", node, "address", found.get().address()));
    }
}
