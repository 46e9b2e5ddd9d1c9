package dev.hearth.server.pool;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import dev.hearth.server.sandbox.Slot;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jdbi.v3.core.Handle;

/** The pooled_sandboxes table: persistence only. A node reads and writes its own pool's rows. */
public final class PoolStore {
    private final String node;

    public PoolStore(String node) {
        this.node = node;
    }

    public void insert(Handle h, PooledSandbox p) {
        h.createUpdate("INSERT INTO pooled_sandboxes (id, image, image_digest, slot, state, created_at, node) "
                        + "VALUES (:id, :image, :digest, :slot, :state, :at, :node)")
                .bind("id", p.id()).bind("image", p.image()).bind("digest", p.imageDigest())
                .bind("slot", p.slot().index()).bind("state", p.state().wire()).bind("at", millis(p.createdAt()))
                .bind("node", node).execute();
    }

    public void markReady(Handle h, String id, String digest) {
        h.createUpdate("UPDATE pooled_sandboxes SET state = :state, image_digest = :digest WHERE id = :id")
                .bind("state", PoolState.READY.wire()).bind("digest", digest).bind("id", id).execute();
    }

    /** Takes a ready sandbox out of the pool; false if another claim took it first. */
    public boolean claim(Handle h, String id) {
        return h.createUpdate("DELETE FROM pooled_sandboxes WHERE id = :id AND state = :state")
                .bind("id", id).bind("state", PoolState.READY.wire()).execute() == 1;
    }

    public void delete(Handle h, String id) {
        h.createUpdate("DELETE FROM pooled_sandboxes WHERE id = :id").bind("id", id).execute();
    }

    public List<PooledSandbox> all(Handle h) {
        return h.createQuery("SELECT * FROM pooled_sandboxes WHERE node = :node ORDER BY image, created_at, id")
                .bind("node", node)
                .map((rs, ctx) -> new PooledSandbox(rs.getString("id"), rs.getString("image"),
                        rs.getString("image_digest"), new Slot(rs.getInt("slot")), PoolState.of(rs.getString("state")),
                        instant(rs, "created_at")))
                .list();
    }

    public Set<String> digests(Handle h) {
        return new TreeSet<>(h.createQuery("SELECT image_digest FROM pooled_sandboxes WHERE image_digest IS NOT NULL")
                .mapTo(String.class).list());
    }

    /** Every node's: network slots are chosen store-wide, so that nodes on one host never share one. */
    public Set<Integer> slots(Handle h) {
        return new TreeSet<>(h.createQuery("SELECT slot FROM pooled_sandboxes").mapTo(Integer.class).list());
    }
}
