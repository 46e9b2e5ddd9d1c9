package dev.hearth.server.queries;

import dev.hearth.api.ApiException;
import dev.hearth.api.Validate;
import dev.hearth.api.queries.CreateQuery;
import dev.hearth.api.queries.SavedQuery;
import dev.hearth.api.queries.UpdateQuery;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.store.Constraints;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.tenancy.Caller;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The rules of saved queries: a name people read (unique among the workspace's live queries) and
 * the statement's text, as the SQL editor runs it (one statement, at most 100,000 characters).
 */
public final class SavedQueries {
    static final int MAX_NAME = 100;
    static final int MAX_SQL = 100_000;

    private final Jdbi jdbi;
    private final SavedQueryStore store;
    private final Clock clock;

    public SavedQueries(Jdbi jdbi, SavedQueryStore store, Clock clock) {
        this.jdbi = jdbi;
        this.store = store;
        this.clock = clock;
    }

    public SavedQuery create(Caller caller, Workspace workspace, CreateQuery request) {
        String name = name(request.name());
        String sql = sql(request.sql());
        Instant now = now();
        var query = new SavedQuery(Ids.next(), workspace.id(), name, sql, caller.id(), caller.id(), now, now, null);
        return Constraints.unique(() -> {
            jdbi.useTransaction(h -> store.insert(h, query));
            return query;
        }, () -> taken(name));
    }

    public Page<SavedQuery> list(Workspace workspace, PageRequest page) {
        return Page.of(jdbi.withHandle(h -> store.page(h, workspace.id(), page)), page.limit(), SavedQuery::id);
    }

    public SavedQuery get(Workspace workspace, String ref) {
        return jdbi.withHandle(h -> find(h, workspace, ref));
    }

    public SavedQuery update(Caller caller, Workspace workspace, String ref, UpdateQuery request) {
        if (request.name() == null && request.sql() == null) {
            throw ApiException.invalidField("sql", "give sql, name or both");
        }
        String name = request.name() == null ? null : name(request.name());
        String sql = request.sql() == null ? null : sql(request.sql());
        return Constraints.unique(() -> jdbi.inTransaction(h -> {
            var old = find(h, workspace, ref);
            if (old.deletedAt() != null) {
                throw ApiException.conflict("query " + old.name() + " is deleted; save it again");
            }
            var changed = new SavedQuery(old.id(), old.workspace(), name != null ? name : old.name(),
                    sql != null ? sql : old.sql(), old.createdBy(), caller.id(), old.createdAt(), now(), null);
            store.update(h, changed);
            return changed;
        }), () -> taken(name));
    }

    public SavedQuery delete(Caller caller, Workspace workspace, String ref) {
        return jdbi.inTransaction(h -> {
            var query = find(h, workspace, ref);
            if (query.deletedAt() != null) {
                return query;
            }
            Instant now = now();
            var deleted = new SavedQuery(query.id(), query.workspace(), query.name(), query.sql(), query.createdBy(),
                    caller.id(), query.createdAt(), now, now);
            store.update(h, deleted);
            return deleted;
        });
    }

    private SavedQuery find(Handle h, Workspace workspace, String ref) {
        return store.find(h, workspace.id(), ref).orElseThrow(() -> ApiException.notFound("query " + ref));
    }

    private static String name(String name) {
        Validate.text("name", Validate.required("name", name), MAX_NAME);
        if (name.isBlank() || name.contains("\n") || name.contains("\t")) {
            throw ApiException.invalidField("name", "one line of 1 to " + MAX_NAME + " characters");
        }
        return name.strip();
    }

    private static String sql(String sql) {
        Validate.maxLength("sql", Validate.required("sql", sql), MAX_SQL);
        if (sql.isBlank()) {
            throw ApiException.invalidField("sql", "a statement");
        }
        if (sql.indexOf('\0') >= 0) {
            throw ApiException.invalidField("sql", "text without NUL characters");
        }
        return sql;
    }

    private static ApiException taken(String name) {
        return ApiException.conflict("a query named " + name + " already exists in this workspace");
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
