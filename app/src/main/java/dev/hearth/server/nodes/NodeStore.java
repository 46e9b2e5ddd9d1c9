package dev.hearth.server.nodes;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import dev.hearth.api.nodes.NodeCapacity;
import dev.hearth.api.nodes.NodeHosted;
import dev.hearth.api.nodes.NodeState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** The nodes table: persistence only. */
public final class NodeStore {

    /** A process claiming a node's row: who it is and what it has. */
    public record Claim(String name, String address, String routerAddress, String databaseAddress, String publicUrl,
                        String instance, NodeCapacity capacity) {
    }

    /**
     * Takes the node's row for {@code claim}'s process: true when it is ours now (the row was held by
     * this process or by {@code previous}, known dead, or its lease lapsed at {@code now}); false
     * when a live process holds it. An operator's draining stays.
     */
    public boolean takeOver(Handle h, Claim claim, String previous, Instant now, Instant until) {
        return h.createUpdate("""
                UPDATE nodes SET address = :address, router_address = :router, database_address = :database,
                    public_url = :publicUrl, instance = :instance, memory_bytes = :memory, cpus = :cpus,
                    disk_bytes = :disk, started_at = :now, lease_until = :until
                WHERE name = :name AND (instance IN (:instance, :previous) OR lease_until < :now)""")
                .bindMap(claimValues(claim)).bind("previous", previous).bind("now", millis(now))
                .bind("until", millis(until)).execute() == 1;
    }

    /** A node's first row; a unique violation when another process registered it first. */
    public void insert(Handle h, Claim claim, Instant now, Instant until) {
        h.createUpdate("""
                INSERT INTO nodes (name, address, router_address, database_address, public_url, instance, state,
                    memory_bytes, cpus, disk_bytes, started_at, lease_until)
                VALUES (:name, :address, :router, :database, :publicUrl, :instance, 'up', :memory, :cpus, :disk, :now,
                    :until)""")
                .bindMap(claimValues(claim)).bind("now", millis(now)).bind("until", millis(until)).execute();
    }

    /** The base URL clients of node {@code name} use, as it registered last. */
    public Optional<String> publicUrl(Handle h, String name) {
        return h.createQuery("SELECT public_url FROM nodes WHERE name = :name").bind("name", name)
                .mapTo(String.class).findOne();
    }

    /** Extends the lease; false when the row is no longer this process's (another took it over). */
    public boolean renew(Handle h, String name, String instance, Instant until) {
        return h.createUpdate("UPDATE nodes SET lease_until = :until WHERE name = :name AND instance = :instance")
                .bind("name", name).bind("instance", instance).bind("until", millis(until)).execute() == 1;
    }

    /** Ends the lease at {@code now}: the node shows down at once, and may start again under the name. */
    public void release(Handle h, String name, String instance, Instant now) {
        h.createUpdate("UPDATE nodes SET lease_until = :now WHERE name = :name AND instance = :instance")
                .bind("name", name).bind("instance", instance).bind("now", millis(now)).execute();
    }

    /** Records what an operator asked of a node (up or draining); false when no node has that name. */
    public boolean setState(Handle h, String name, NodeState state) {
        if (state == NodeState.DOWN) {
            throw new IllegalArgumentException("down is read from the lease, never set");
        }
        return h.createUpdate("UPDATE nodes SET state = :state WHERE name = :name")
                .bind("name", name).bind("state", state.wire()).execute() == 1;
    }

    /** What an operator asked of the node (up or draining), without reading what it hosts. */
    public Optional<NodeState> asked(Handle h, String name) {
        return h.createQuery("SELECT state FROM nodes WHERE name = :name").bind("name", name)
                .mapTo(String.class).findOne().map(NodeState::of);
    }

    /** One node, without counting what it hosts (asked on every request for another node's resource). */
    public Optional<Node> find(Handle h, String name, Instant now) {
        return h.createQuery("SELECT * FROM nodes WHERE name = :name").bind("name", name)
                .map((rs, ctx) -> node(rs, NodeHosted.NONE, now)).findOne();
    }

    /** Every node by name, down where its lease lapsed by {@code now}, with what it hosts. */
    public List<Node> all(Handle h, Instant now) {
        var hosted = hosted(h);
        return h.createQuery("SELECT * FROM nodes ORDER BY name")
                .map((rs, ctx) -> node(rs, hosted.getOrDefault(rs.getString("name"), NodeHosted.NONE), now))
                .list();
    }

    private static Map<String, NodeHosted> hosted(Handle h) {
        var result = new HashMap<String, NodeHosted>();
        for (var row : h.createQuery("""
                        SELECT node, COUNT(*) AS n,
                            COALESCE(SUM(CASE WHEN state IN ('creating', 'ready') THEN memory_mb ELSE 0 END), 0) AS mb
                        FROM computers WHERE deleted_at IS NULL GROUP BY node""")
                .map((rs, ctx) -> Map.entry(rs.getString("node"), new NodeHosted(rs.getLong("n"), 0,
                        rs.getLong("mb") << 20))).list()) {
            result.put(row.getKey(), row.getValue());
        }
        for (var row : h.createQuery("SELECT node, COUNT(*) AS n FROM databases WHERE deleted_at IS NULL GROUP BY node")
                .map((rs, ctx) -> Map.entry(rs.getString("node"), rs.getLong("n"))).list()) {
            var computers = result.getOrDefault(row.getKey(), NodeHosted.NONE);
            result.put(row.getKey(), new NodeHosted(computers.computers(), row.getValue(),
                    computers.computerMemoryBytes()));
        }
        return result;
    }

    private static Node node(ResultSet rs, NodeHosted hosted, Instant now) throws SQLException {
        Instant until = instant(rs, "lease_until");
        var state = until.isBefore(now) ? NodeState.DOWN : NodeState.of(rs.getString("state"));
        return new Node(rs.getString("name"), rs.getString("address"), rs.getString("router_address"),
                rs.getString("database_address"), state,
                new NodeCapacity(rs.getLong("memory_bytes"), rs.getInt("cpus"), rs.getLong("disk_bytes")),
                hosted, instant(rs, "started_at"), until);
    }

    private static Map<String, Object> claimValues(Claim claim) {
        return Map.of("name", claim.name(), "address", claim.address(), "router", claim.routerAddress(),
                "database", claim.databaseAddress(), "publicUrl", claim.publicUrl(), "instance", claim.instance(),
                "memory", claim.capacity().memoryBytes(), "cpus", claim.capacity().cpus(),
                "disk", claim.capacity().diskBytes());
    }
}
