package dev.hearth.server.access;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import dev.hearth.api.tenancy.Role;
import dev.hearth.server.store.PageRequest;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/** Persists who holds which role in which workspace. */
public final class AccessStore {

    public void insert(Handle h, Grant g) {
        h.createUpdate("""
                INSERT INTO access (workspace, principal, role, created_at, updated_at)
                VALUES (:workspace, :principal, :role, :createdAt, :updatedAt)""")
                .bind("workspace", g.workspace()).bind("principal", g.principal()).bind("role", g.role().name())
                .bind("createdAt", millis(g.createdAt())).bind("updatedAt", millis(g.updatedAt())).execute();
    }

    public Optional<Grant> find(Handle h, String workspace, String principal) {
        return h.createQuery("SELECT * FROM access WHERE workspace = :w AND principal = :p")
                .bind("w", workspace).bind("p", principal).map(AccessStore::grant).findOne();
    }

    /** Grants of one workspace in principal-id order, one more than the limit to tell if there are more. */
    public List<Grant> page(Handle h, String workspace, PageRequest page) {
        return h.createQuery("""
                SELECT * FROM access WHERE workspace = :w AND principal > :after
                ORDER BY principal LIMIT :n""")
                .bind("w", workspace).bind("after", page.after().orElse("")).bind("n", page.limit() + 1)
                .map(AccessStore::grant).list();
    }

    public void updateRole(Handle h, String workspace, String principal, Role role, Instant at) {
        h.createUpdate("UPDATE access SET role = :role, updated_at = :at WHERE workspace = :w AND principal = :p")
                .bind("w", workspace).bind("p", principal).bind("role", role.name()).bind("at", millis(at)).execute();
    }

    public void delete(Handle h, String workspace, String principal) {
        h.createUpdate("DELETE FROM access WHERE workspace = :w AND principal = :p")
                .bind("w", workspace).bind("p", principal).execute();
    }

    public long countAdmins(Handle h, String workspace) {
        return h.createQuery("SELECT COUNT(*) FROM access WHERE workspace = :w AND role = 'ADMIN'")
                .bind("w", workspace).mapTo(Long.class).one();
    }

    public long countWorkspaces(Handle h, String principal) {
        return h.createQuery("SELECT COUNT(*) FROM access WHERE principal = :p").bind("p", principal)
                .mapTo(Long.class).one();
    }

    private static Grant grant(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Grant(rs.getString("workspace"), rs.getString("principal"), Role.valueOf(rs.getString("role")),
                instant(rs, "created_at"), instant(rs, "updated_at"));
    }
}
