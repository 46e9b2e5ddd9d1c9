package dev.hearth.server.checkpoints;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.checkpoints.CheckpointState;
import dev.hearth.api.checkpoints.SourceType;
import dev.hearth.api.operations.OperationError;
import dev.hearth.server.store.KeyedCreates;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.store.StoredJson;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/** Persists checkpoints. A deleted checkpoint keeps its row and frees its name. */
public final class CheckpointStore {
    // Above every id: ids are [0-9a-z], so a page with no cursor starts below this.
    private static final String ABOVE_ALL = "~";

    public void insert(Handle h, Checkpoint c) {
        KeyedCreates.made(h, c.id());
        h.createUpdate("""
                INSERT INTO checkpoints (id, workspace, source_type, source, name, state, generation, image_digest,
                    size_bytes, parent, created_at, kept)
                VALUES (:id, :ws, :type, :source, :name, :state, :gen, :digest, :size, :parent, :at, :kept)""")
                .bind("kept", c.kept())
                .bind("id", c.id()).bind("ws", c.workspace()).bind("type", c.sourceType().wire()).bind("source", c.source())
                .bind("name", c.name()).bind("state", c.state().wire()).bind("gen", c.generation())
                .bind("digest", c.imageDigest()).bind("size", c.sizeBytes()).bind("parent", c.parent())
                .bind("at", millis(c.createdAt())).execute();
    }

    public Optional<Checkpoint> find(Handle h, String id) {
        return h.createQuery("SELECT * FROM checkpoints WHERE id = :id").bind("id", id)
                .map(CheckpointStore::checkpoint).findOne();
    }

    /** Of one source: by id (deleted too), or by a live name (a failed one only if no other has it). */
    public Optional<Checkpoint> find(Handle h, String source, String idOrName) {
        return h.createQuery("""
                SELECT * FROM checkpoints WHERE source = :s AND (id = :v OR (name = :v AND deleted_at IS NULL))
                ORDER BY CASE WHEN id = :v THEN 0 WHEN state <> 'failed' THEN 1 ELSE 2 END, id DESC LIMIT 1""")
                .bind("s", source).bind("v", idOrName).map(CheckpointStore::checkpoint).findOne();
    }

    /** Newest first: the cursor is the last id of the previous page. */
    public List<Checkpoint> page(Handle h, String source, PageRequest page) {
        return h.createQuery("""
                SELECT * FROM checkpoints WHERE source = :s AND deleted_at IS NULL AND id < :before
                ORDER BY id DESC LIMIT :n""")
                .bind("s", source).bind("before", page.after().orElse(ABOVE_ALL)).bind("n", page.limit() + 1)
                .map(CheckpointStore::checkpoint).list();
    }

    /** The newest ready checkpoint of a source: the parent of its next one. */
    public Optional<String> newestReady(Handle h, String source) {
        return h.createQuery("""
                SELECT id FROM checkpoints WHERE source = :s AND deleted_at IS NULL AND state = 'ready'
                ORDER BY id DESC LIMIT 1""").bind("s", source).mapTo(String.class).findOne();
    }

    /** A page of the workspace's kept checkpoints (templates), newest first, of any computer or database. */
    public List<Checkpoint> keptPage(Handle h, String workspace, PageRequest page) {
        return h.createQuery("SELECT * FROM checkpoints WHERE workspace = :w AND kept = :kept AND deleted_at IS NULL "
                        + "AND id < :before ORDER BY id DESC LIMIT :n")
                .bind("w", workspace).bind("kept", true).bind("before", page.after().orElse(ABOVE_ALL))
                .bind("n", page.limit() + 1).map(CheckpointStore::checkpoint).list();
    }

    /** How many kept checkpoints the workspace holds: they keep it from being deleted, as computers do. */
    public long countKept(Handle h, String workspace) {
        return h.createQuery("SELECT COUNT(*) FROM checkpoints WHERE workspace = :w AND kept = :kept "
                + "AND deleted_at IS NULL").bind("w", workspace).bind("kept", true).mapTo(Long.class).one();
    }

    /** Every checkpoint of one source not deleted. */
    public List<Checkpoint> live(Handle h, String source) {
        return h.createQuery("SELECT * FROM checkpoints WHERE deleted_at IS NULL AND source = :s ORDER BY id")
                .bind("s", source).map(CheckpointStore::checkpoint).list();
    }

    /** Every checkpoint not deleted. */
    public List<Checkpoint> live(Handle h) {
        return h.createQuery("SELECT * FROM checkpoints WHERE deleted_at IS NULL ORDER BY id")
                .map(CheckpointStore::checkpoint).list();
    }

    /** Every checkpoint not deleted whose computer or database is on {@code node}, for reconciling its disk. */
    public List<Checkpoint> liveOn(Handle h, String node) {
        return h.createQuery("SELECT * FROM checkpoints k WHERE deleted_at IS NULL AND ("
                        + "EXISTS (SELECT 1 FROM computers c WHERE c.id = k.source AND c.node = :node) "
                        + "OR EXISTS (SELECT 1 FROM databases d WHERE d.id = k.source AND d.node = :node)) ORDER BY id")
                .bind("node", node).map(CheckpointStore::checkpoint).list();
    }

    public void update(Handle h, Checkpoint c) {
        h.createUpdate("""
                UPDATE checkpoints SET state = :state, size_bytes = :size, error = :error, deleted_at = :deleted
                WHERE id = :id""")
                .bind("id", c.id()).bind("state", c.state().wire()).bind("size", c.sizeBytes())
                .bind("error", StoredJson.text(c.error())).bind("deleted", millis(c.deletedAt()))
                .execute();
    }

    /** Moves a checkpoint not yet deleted to {@code deleting}; false if it was already (or is gone). */
    public boolean markDeleting(Handle h, String id) {
        return h.createUpdate("UPDATE checkpoints SET state = 'deleting' WHERE id = :id AND state <> 'deleting' "
                + "AND deleted_at IS NULL").bind("id", id).execute() == 1;
    }

    /** Image digests that checkpoints still need unpacked (to restore or fork from). */
    public Set<String> digestsInUse(Handle h) {
        return new TreeSet<>(h.createQuery("SELECT DISTINCT image_digest FROM checkpoints WHERE deleted_at IS NULL "
                + "AND image_digest IS NOT NULL").mapTo(String.class).list());
    }

    private static Checkpoint checkpoint(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Checkpoint(rs.getString("id"), rs.getString("workspace"), SourceType.of(rs.getString("source_type")),
                rs.getString("source"), rs.getString("name"), CheckpointState.of(rs.getString("state")),
                rs.getInt("generation"), rs.getString("image_digest"), rs.getLong("size_bytes"),
                rs.getString("parent"), StoredJson.read(rs, "error", OperationError.class),
                instant(rs, "created_at"), instant(rs, "deleted_at"), rs.getBoolean("kept"));
    }
}
