package dev.hearth.server.nodes;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.hearth.api.nodes.NodeCapacity;
import dev.hearth.api.nodes.NodeHosted;
import dev.hearth.api.nodes.NodeState;
import dev.hearth.api.nodes.NodeView;
import java.time.Instant;

/**
 * A node as the store knows it: where other nodes reach its API, its computer router and its
 * databases' ports (a host: each database keeps its port on every node), what it has, what it
 * hosts, and its lease. {@code state} is {@link NodeState#DOWN} once the lease lapsed, whatever was asked.
 */
public record Node(String name, String address, String routerAddress, String databaseAddress, NodeState state,
                   NodeCapacity capacity, NodeHosted hosted, Instant startedAt, Instant leaseUntil) {
    /** How the operator sees it (GET /v1/nodes, and the metrics listener's GET /nodes). */
    @JsonValue
    public NodeView view() {
        return new NodeView(name, address, routerAddress, databaseAddress, state, capacity, hosted, startedAt,
                leaseUntil);
    }

    @JsonIgnore
    public boolean isDown() {
        return state == NodeState.DOWN;
    }
}
