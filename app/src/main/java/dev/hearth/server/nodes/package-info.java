/**
 * Nodes: the {@code hearth serve} processes that share one store, each running its own computers
 * and databases. A node registers under its name with its address and capacity and holds a lease it
 * renews ({@link NodeLease}); the store keeps them ({@link NodeStore}); a node whose lease lapsed is
 * down ({@link NodeState}). Every computer, database, pooled sandbox and operation row names its
 * node, and a node reconciles and acts on its own rows only ({@link LocalNode}).
 */
package dev.hearth.server.nodes;

import dev.hearth.api.nodes.NodeState;
