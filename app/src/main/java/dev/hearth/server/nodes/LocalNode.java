package dev.hearth.server.nodes;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.nodes.NodeState;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jdbi.v3.core.Handle;
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
    private static final long FRESH_NANOS = 1_000_000_000L;
    private final Map<String, Seen> seenUp = new ConcurrentHashMap<>();

    private record Seen(Node node, long at) {
    }

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

    /** Where a node's computer router listens (host:port), when the node is known. */
    public Optional<String> routerOf(String node) {
        return other(node).map(Node::routerAddress).filter(a -> a != null && !a.isEmpty());
    }

    /**
     * Another node as the store has it, read again after {@link #FRESH_NANOS} while it is up: every
     * request for its resources asks, and a store read was a good part of a relay's cost. A node
     * found down is read every time (it answers as soon as it is back); one that went down since
     * refuses the relayed connection, which answers 503 as well.
     */
    private Optional<Node> other(String name) {
        var seen = seenUp.get(name);
        long now = System.nanoTime();
        if (seen != null && now - seen.at() < FRESH_NANOS) {
            return Optional.of(seen.node());
        }
        var found = jdbi.withHandle(h -> store.find(h, name, clock.instant()));
        found.filter(n -> !n.isDown()).ifPresentOrElse(n -> seenUp.put(name, new Seen(n, now)),
                () -> seenUp.remove(name));
        return found;
    }

    public boolean owns(String node) {
        return name.equals(node);
    }

    /**
     * Returns when a new computer given {@code memoryMb} is to be made on this node; otherwise throws
     * 421 wrong_node naming the node it goes to (the API relays the request there), or 503
     * node_unavailable when no node has room. A request relayed here was placed already.
     */
    public void placeComputer(int memoryMb) {
        Placement.place(name, all(), "this computer", (long) memoryMb << 20);
    }

    /**
     * The same for a fork of a checkpoint whose computer runs on {@code source}: made there while it
     * has room, else placed as a new computer is (see {@link Placement#placeFork}).
     */
    public void placeFork(String source, int memoryMb) {
        Placement.placeFork(name, source, all(), (long) memoryMb << 20);
    }

    /** Another node, when the store knows it (read again after a second; see {@link #other}). */
    public Optional<Node> known(String node) {
        return other(node);
    }

    /** The same for a new database, which goes where the fewest are. */
    public void placeDatabase() {
        Placement.place(name, all(), "this database", 0);
    }

    /** In the transaction that inserts a computer, under the store's slot lock: 503 when it would overfill this node. */
    public void requireRoom(Handle h, int memoryMb) {
        Placement.requireRoom(h, name, (long) memoryMb << 20);
    }

    /** Runs {@code work}, a request another node relayed here, with what it creates placed on this node. */
    public static <R> R placedHere(Supplier<R> work) {
        return Placement.placedHere(work);
    }

    /** Whether an operator is draining this node: it takes no new work, and its sleeping computers move away. */
    public boolean draining() {
        return jdbi.withHandle(h -> store.asked(h, name)).orElse(NodeState.UP) == NodeState.DRAINING;
    }

    /** The node a sleeping computer of this one moves to while it drains, if one is up and takes work. */
    public Optional<Node> moveTarget() {
        return Placement.elsewhere(name, all());
    }

    /** The node a sleeping database of this one moves to while it drains, if one is up and takes work. */
    public Optional<Node> databaseMoveTarget() {
        return Placement.elsewhereForDatabase(name, all());
    }

    /** Returns unless an operator is draining this node: then 503 node_unavailable, since it takes no new work. */
    public void requireTakingWork() {
        if (draining()) {
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
        var found = other(node);
        if (found.isEmpty() || found.get().isDown()) {
            throw new ApiException(ErrorCode.NODE_UNAVAILABLE, what + " is on node " + node
                    + ", which is down; it is back when that node is", Map.of("node", node));
        }
        throw new ApiException(ErrorCode.WRONG_NODE, what + " is on node " + node + "; send this request to "
                + "that node's API at " + found.get().address(), Map.of("node", node, "address", found.get().address()));
    }
}
