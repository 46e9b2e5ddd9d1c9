package dev.hearth.server.nodes;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;

/**
 * A node as the store knows it: where other nodes reach its API, its computer router and its
 * databases' ports (a host: each database keeps its port on every node), what it has, what it
 * hosts, and its lease. {@code state} is {@link NodeState#DOWN} once the lease lapsed, whatever was asked.
 */
public record Node(String name, String address, String routerAddress, String databaseAddress, NodeState state,
                   Capacity capacity, Hosted hosted, Instant startedAt, Instant leaseUntil) {

    /** The host's memory, cpus and the data directory's disk, as the node measured them at start. */
    public record Capacity(long memoryBytes, int cpus, long diskBytes) {
    }

    /**
     * The live computers and databases whose rows name this node, and the memory its awake computers
     * are given (a sleeping one's memory is on disk).
     */
    public record Hosted(long computers, long databases, long computerMemoryBytes) {
        public static final Hosted NONE = new Hosted(0, 0, 0);
    }

    @JsonIgnore
    public boolean isDown() {
        return state == NodeState.DOWN;
    }
}
