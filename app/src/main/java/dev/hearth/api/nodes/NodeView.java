package dev.hearth.api.nodes;

import dev.hearth.api.Required;
import java.time.Instant;

/**
 * A node of the cluster, for its operator: where other nodes reach its API ({@code address}), its
 * computer router and its databases' ports, its state, what it has and what it hosts, when it
 * started and until when its lease holds (past that it is {@code down}).
 */
public record NodeView(@Required String name, @Required String address, String routerAddress, String databaseAddress,
                       @Required NodeState state, @Required NodeCapacity capacity, @Required NodeHosted hosted,
                       @Required Instant startedAt, @Required Instant leaseUntil) {
}
