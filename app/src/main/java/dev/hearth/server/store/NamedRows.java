package dev.hearth.server.store;

import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * The reads every table of named workspace resources shares (computers, databases, variables):
 * by id, deleted rows too, or by live name within a workspace; which workspace holds one; pages
 * of the live ones. A deleted row keeps its id and frees its name.
 */
public record NamedRows<T>(String table, RowMapper<T> mapper) {

    /** By id (deleted too), or by live name within the workspace; the id wins when both match. */
    public Optional<T> find(Handle h, String workspace, String idOrName) {
        return h.createQuery("SELECT * FROM " + table
                        + " WHERE workspace = :w AND (id = :v OR (name = :v AND deleted_at IS NULL))"
                        + " ORDER BY CASE WHEN id = :v THEN 0 ELSE 1 END LIMIT 1")
                .bind("w", workspace).bind("v", idOrName).map(mapper).findOne();
    }

    /** The workspace holding it: by id, or by live name within {@code workspace} when given. */
    public Optional<String> workspaceOf(Handle h, String idOrName, Optional<String> workspace) {
        if (workspace.isPresent()) {
            return h.createQuery("SELECT workspace FROM " + table
                            + " WHERE workspace = :w AND (id = :v OR (name = :v AND deleted_at IS NULL)) LIMIT 1")
                    .bind("w", workspace.get()).bind("v", idOrName).mapTo(String.class).findOne();
        }
        return h.createQuery("SELECT workspace FROM " + table + " WHERE id = :id").bind("id", idOrName)
                .mapTo(String.class).findOne();
    }

    /** Live rows of the workspace in id order, one more than the page holds (to tell whether more follow). */
    public List<T> page(Handle h, String workspace, PageRequest page) {
        return h.createQuery("SELECT * FROM " + table
                        + " WHERE workspace = :w AND deleted_at IS NULL AND id > :after ORDER BY id LIMIT :n")
                .bind("w", workspace).bind("after", page.after().orElse("")).bind("n", page.limit() + 1)
                .map(mapper).list();
    }
}
