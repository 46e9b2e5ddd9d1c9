package dev.hearth.server.nodes;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.nodes.NodeState;
import dev.hearth.server.http.Relay;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.jdbi.v3.core.Handle;

/**
 * Where a new computer or database goes: among the nodes that are up and not draining, computers to
 * the one with the most memory free for awake computers (then the fewest computers), databases to
 * the one with the fewest databases; this node on a tie. The choice is advice read without locks;
 * the claim is the insert, which {@link #requireRoom} checks again under the store's slot lock, so
 * racing creates on several nodes never overfill one.
 */
final class Placement {
    /** In the details of a refusal for want of room on a node that placement chose: place again. */
    static final String FULL = Relay.FULL;
    // Bound while a node serves a request another node relayed to it after placing it here.
    private static final ScopedValue<Boolean> PLACED = ScopedValue.newInstance();

    private Placement() {
    }

    static <R> R placedHere(Supplier<R> work) {
        return ScopedValue.where(PLACED, true).call(work::get);
    }

    /** Returns when the new resource is to be made here; else throws where it goes (see {@link LocalNode}). */
    static void place(String here, List<Node> nodes, String what, long memoryBytes) {
        // A node with no row was never registered (a service tried alone, without a lease): it places on itself.
        if (PLACED.isBound() || nodes.stream().noneMatch(n -> n.name().equals(here))) {
            return;
        }
        ToLongFunction<Node> free = n -> n.capacity().memoryBytes() - n.hosted().computerMemoryBytes();
        // This node is alive whatever its lease says (a stalled renewal must not make it refuse itself).
        var candidates = nodes.stream()
                .filter(n -> n.name().equals(here) ? n.state() != NodeState.DRAINING : n.state() == NodeState.UP)
                .filter(n -> memoryBytes == 0 || free.applyAsLong(n) >= memoryBytes).toList();
        Comparator<Node> order = memoryBytes == 0
                ? Comparator.comparingLong(n -> n.hosted().databases())
                : Comparator.comparingLong(free).reversed().thenComparingLong(n -> n.hosted().computers());
        var best = candidates.stream().min(order.thenComparing(n -> !n.name().equals(here))).orElseThrow(() ->
                new ApiException(ErrorCode.NODE_UNAVAILABLE, "no node that is up and not draining has room for "
                        + what + (memoryBytes == 0 ? "" : " (" + (memoryBytes >> 20) + " MiB)"),
                        Map.of("nodes", nodes.stream().map(Node::name).toList())));
        if (!best.name().equals(here)) {
            throw new ApiException(ErrorCode.WRONG_NODE, what + " is placed on node " + best.name() + "; send "
                    + "this request to that node's API at " + best.address(),
                    Map.of("node", best.name(), "address", best.address()));
        }
    }

    /**
     * Returns when a fork of a checkpoint whose computer runs on {@code source} is to be made here:
     * on the source's node while it has room (the checkpoint's files are there), else where
     * {@link #place} puts a new computer, which then copies the checkpoint from the source's node.
     * Otherwise throws where it goes, as {@link #place} does.
     */
    static void placeFork(String here, String source, List<Node> nodes, long memoryBytes) {
        if (PLACED.isBound() || nodes.stream().noneMatch(n -> n.name().equals(here))) {
            return;
        }
        ToLongFunction<Node> free = n -> n.capacity().memoryBytes() - n.hosted().computerMemoryBytes();
        var home = nodes.stream().filter(n -> n.name().equals(source)
                && (n.name().equals(here) ? n.state() != NodeState.DRAINING : n.state() == NodeState.UP)
                && free.applyAsLong(n) >= memoryBytes).findFirst();
        if (home.isEmpty()) {
            place(here, nodes, "this fork", memoryBytes);
        } else if (!source.equals(here)) {
            throw new ApiException(ErrorCode.WRONG_NODE, "this fork is made on node " + source + ", where its "
                    + "checkpoint is; send this request to that node's API at " + home.get().address(),
                    Map.of("node", source, "address", home.get().address()));
        }
    }

    /**
     * Where a sleeping computer of a draining node goes: the other node, up and not draining, with the
     * most memory free for awake computers (it wakes there), then the fewest computers.
     */
    static Optional<Node> elsewhere(String here, List<Node> nodes) {
        ToLongFunction<Node> free = n -> n.capacity().memoryBytes() - n.hosted().computerMemoryBytes();
        return nodes.stream().filter(n -> !n.name().equals(here) && n.state() == NodeState.UP)
                .min(Comparator.comparingLong(free).reversed().thenComparingLong(n -> n.hosted().computers()));
    }

    /** The node, up and taking work, a database of {@code here} moves to: the one with the fewest databases. */
    static Optional<Node> elsewhereForDatabase(String here, List<Node> nodes) {
        return nodes.stream().filter(n -> !n.name().equals(here) && n.state() == NodeState.UP)
                .min(Comparator.comparingLong(n -> n.hosted().databases()));
    }

    /** In the insert's transaction, under the slot lock: 503 when this node's awake computers would exceed its memory. */
    static void requireRoom(Handle h, String here, long memoryBytes) {
        long capacity = h.createQuery("SELECT memory_bytes FROM nodes WHERE name = :name").bind("name", here)
                .mapTo(Long.class).findOne().orElse(Long.MAX_VALUE);
        long given = h.createQuery("SELECT COALESCE(SUM(memory_mb), 0) FROM computers WHERE node = :name "
                        + "AND deleted_at IS NULL AND state IN ('creating', 'ready')").bind("name", here)
                .mapTo(Long.class).one() << 20;
        if (given + memoryBytes > capacity) {
            throw new ApiException(ErrorCode.NODE_UNAVAILABLE, "node " + here + " has no room for another "
                    + (memoryBytes >> 20) + " MiB computer: its awake computers are given " + (given >> 20) + " of "
                    + (capacity >> 20) + " MiB", Map.of("node", here, "free_mb", Math.max(0, capacity - given) >> 20, FULL, true));
        }
    }
}
