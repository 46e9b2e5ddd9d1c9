package dev.hearth.api.nodes;

import dev.hearth.api.WireName;

/**
 * Up (its lease is fresh and it takes new work), draining (fresh, but an operator asked that it get
 * no new work) or down (its lease lapsed: the process stopped or cannot reach the store). Down is
 * read from the lease, never stored.
 */
public enum NodeState implements WireName {
    UP, DRAINING, DOWN;

    @Override
    public String toString() {
        return wire();
    }

    public static NodeState of(String wire) {
        return WireName.parse(NodeState.class, wire);
    }
}
