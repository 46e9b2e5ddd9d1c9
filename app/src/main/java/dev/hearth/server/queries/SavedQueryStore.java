package dev.hearth.server.queries;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import dev.hearth.api.queries.SavedQuery;
import dev.hearth.server.store.KeyedCreates;
import dev.hearth.server.store.NamedRows;
import dev.hearth.server.store.PageRequest;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/** Persists saved queries. */
public final class SavedQueryStore {
    private final NamedRows<SavedQuery> rows = new NamedRows<>("saved_queries", SavedQueryStore::query);

    public void insert(Handle h, SavedQuery q) {
        KeyedCreates.made(h, q.id());
        h.createUpdate("""
                INSERT INTO saved_queries (id, workspace, name, sql, created_by, updated_by, created_at, updated_at)
                VALUES (:id, :workspace, :name, :sql, :createdBy, :updatedBy, :createdAt, :updatedAt)""")
                .bind("id", q.id()).bind("workspace", q.workspace()).bind("name", q.name()).bind("sql", q.sql())
                .bind("createdBy", q.createdBy()).bind("updatedBy", q.updatedBy())
                .bind("createdAt", millis(q.createdAt())).bind("updatedAt", millis(q.updatedAt())).execute();
    }

    /** Name, text and who changed it last; a deleted query's {@code deletedAt} as well. */
    public void update(Handle h, SavedQuery q) {
        h.createUpdate("""
                UPDATE saved_queries SET name = :name, sql = :sql, updated_by = :by, updated_at = :at,
                deleted_at = :deletedAt WHERE id = :id""")
                .bind("id", q.id()).bind("name", q.name()).bind("sql", q.sql()).bind("by", q.updatedBy())
                .bind("at", millis(q.updatedAt())).bind("deletedAt", millis(q.deletedAt())).execute();
    }

    /** By id (deleted too), or by live name within the workspace. */
    public Optional<SavedQuery> find(Handle h, String workspace, String idOrName) {
        return rows.find(h, workspace, idOrName);
    }

    public Optional<String> workspaceOf(Handle h, String idOrName, Optional<String> workspace) {
        return rows.workspaceOf(h, idOrName, workspace);
    }

    public List<SavedQuery> page(Handle h, String workspace, PageRequest page) {
        return rows.page(h, workspace, page);
    }

    private static SavedQuery query(ResultSet rs, StatementContext ctx) throws SQLException {
        return new SavedQuery(rs.getString("id"), rs.getString("workspace"), rs.getString("name"), rs.getString("sql"),
                rs.getString("created_by"), rs.getString("updated_by"), instant(rs, "created_at"),
                instant(rs, "updated_at"), instant(rs, "deleted_at"));
    }
}
