package dev.hearth.server.variables;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import dev.hearth.server.crypto.Keyring.Sealed;
import dev.hearth.server.store.KeyedCreates;
import dev.hearth.server.store.NamedRows;
import dev.hearth.server.store.PageRequest;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/** Persists variables (sealed values only). A deleted variable keeps its row and frees its name. */
public final class VariableStore {
    private final NamedRows<Variable> rows = new NamedRows<>("variables", VariableStore::variable);

    public void insert(Handle h, Variable v) {
        KeyedCreates.made(h, v.id());
        h.createUpdate("""
                INSERT INTO variables (id, workspace, name, ciphertext, key_id, created_by, updated_by, created_at, updated_at)
                VALUES (:id, :workspace, :name, :data, :keyId, :createdBy, :updatedBy, :createdAt, :updatedAt)""")
                .bind("id", v.id()).bind("workspace", v.workspace()).bind("name", v.name())
                .bind("data", v.sealed().data()).bind("keyId", v.sealed().keyId())
                .bind("createdBy", v.createdBy()).bind("updatedBy", v.updatedBy())
                .bind("createdAt", millis(v.createdAt())).bind("updatedAt", millis(v.updatedAt())).execute();
    }

    /** By id (deleted too), or by live name within a workspace. */
    public Optional<Variable> find(Handle h, String workspace, String idOrName) {
        return rows.find(h, workspace, idOrName);
    }

    /** Which workspace holds it: by id, or by live name within {@code workspace} when given. */
    public Optional<String> workspaceOf(Handle h, String idOrName, Optional<String> workspace) {
        return rows.workspaceOf(h, idOrName, workspace);
    }

    public List<Variable> page(Handle h, String workspace, boolean withDeleted, PageRequest page) {
        return h.createQuery("SELECT * FROM variables WHERE workspace = :w AND id > :after"
                        + (withDeleted ? "" : " AND deleted_at IS NULL") + " ORDER BY id LIMIT :n")
                .bind("w", workspace).bind("after", page.after().orElse("")).bind("n", page.limit() + 1)
                .map(VariableStore::variable).list();
    }

    public void update(Handle h, Variable v) {
        h.createUpdate("""
                UPDATE variables SET name = :name, ciphertext = :data, key_id = :keyId, updated_by = :by,
                updated_at = :at WHERE id = :id""")
                .bind("id", v.id()).bind("name", v.name()).bind("data", v.sealed().data())
                .bind("keyId", v.sealed().keyId()).bind("by", v.updatedBy()).bind("at", millis(v.updatedAt())).execute();
    }

    public void markDeleted(Handle h, String id, String by, Instant at) {
        h.createUpdate("UPDATE variables SET deleted_at = :at, updated_at = :at, updated_by = :by WHERE id = :id")
                .bind("id", id).bind("by", by).bind("at", millis(at)).execute();
    }

    /** Of {@code names}, those with no live variable in the workspace now: one query. */
    public Set<String> missing(Handle h, String workspace, Collection<String> names) {
        var missing = new TreeSet<>(names);
        if (!names.isEmpty()) {
            missing.removeAll(h.createQuery("SELECT name FROM variables WHERE workspace = :w AND deleted_at IS NULL "
                            + "AND name IN (<names>)")
                    .bind("w", workspace).bindList("names", List.copyOf(names)).mapTo(String.class).list());
        }
        return missing;
    }

    public long countLive(Handle h, String workspace) {
        return h.createQuery("SELECT COUNT(*) FROM variables WHERE workspace = :w AND deleted_at IS NULL")
                .bind("w", workspace).mapTo(Long.class).one();
    }

    private static Variable variable(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Variable(rs.getString("id"), rs.getString("workspace"), rs.getString("name"),
                new Sealed(rs.getString("key_id"), rs.getString("ciphertext")), rs.getString("created_by"),
                rs.getString("updated_by"), instant(rs, "created_at"), instant(rs, "updated_at"),
                instant(rs, "deleted_at"));
    }
}
