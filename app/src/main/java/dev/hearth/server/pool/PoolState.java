package dev.hearth.server.pool;

import dev.hearth.api.WireName;

/** A pooled sandbox is booting (its row holds its id and slot meanwhile) or ready to be claimed. */
public enum PoolState implements WireName {
    BOOTING, READY;

    @Override
    public String toString() {
        return wire();
    }

    public static PoolState of(String wire) {
        return WireName.parse(PoolState.class, wire);
    }
}
