package dev.hearth.server.workspaces;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import dev.hearth.api.tenancy.Role;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.store.KeyedCreates;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.tenancy.Membership;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/** Persists workspaces. Deleted workspaces keep their row (deleted_at set) and free their name. */
public final class WorkspaceStore {
    /** A workspace and the caller's role in it. */

    public void insert(Handle h, Workspace w) {
        KeyedCreates.made(h, w.id());
        h.createUpdate("""
                INSERT INTO workspaces (id, name, state, created_at, updated_at)
                VALUES (:id, :name, :state, :createdAt, :updatedAt)""")
                .bind("id", w.id()).bind("name", w.name()).bind("state", w.state().wire())
                .bind("createdAt", millis(w.createdAt())).bind("updatedAt", millis(w.updatedAt())).execute();
    }

    /** A live workspace by id, or else by name. */
    public Optional<Workspace> findLive(Handle h, String idOrName) {
        return h.createQuery("""
                SELECT * FROM workspaces WHERE deleted_at IS NULL AND (id = :v OR name = :v)
                ORDER BY CASE WHEN id = :v THEN 0 ELSE 1 END LIMIT 1""")
                .bind("v", idOrName).map(WorkspaceStore::workspace).findOne();
    }

    public void rename(Handle h, String id, String name, Instant at) {
        h.createUpdate("UPDATE workspaces SET name = :name, updated_at = :at WHERE id = :id")
                .bind("id", id).bind("name", name).bind("at", millis(at)).execute();
    }

    public void markDeleted(Handle h, String id, Instant at) {
        h.createUpdate("UPDATE workspaces SET deleted_at = :at, updated_at = :at WHERE id = :id")
                .bind("id", id).bind("at", millis(at)).execute();
    }

    /**
     * Serializes changes to one workspace's access: a no-op write that takes the row lock in
     * PostgreSQL (SQLite's immediate transactions are serialized already).
     */
    public void lock(Handle h, String id) {
        h.createUpdate("UPDATE workspaces SET updated_at = updated_at WHERE id = :id").bind("id", id).execute();
    }

    /** The principal's live workspaces in id order, one more than the limit. */
    public List<Membership> memberships(Handle h, String principal, PageRequest page) {
        return h.createQuery("""
                SELECT w.*, a.role FROM workspaces w JOIN access a ON a.workspace = w.id
                WHERE a.principal = :p AND w.deleted_at IS NULL AND w.id > :after
                ORDER BY w.id LIMIT :n""")
                .bind("p", principal).bind("after", page.after().orElse("")).bind("n", page.limit() + 1)
                .map((rs, ctx) -> new Membership(workspace(rs, ctx), Role.valueOf(rs.getString("role")))).list();
    }

    static Workspace workspace(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Workspace(rs.getString("id"), rs.getString("name"), Workspace.State.of(rs.getString("state")),
                instant(rs, "created_at"), instant(rs, "updated_at"), instant(rs, "deleted_at"));
    }
}
