package dev.hearth.server.queries;

import static dev.hearth.server.tenancy.Action.QUERY_READ;
import static dev.hearth.server.tenancy.Action.QUERY_WRITE;

import dev.hearth.api.queries.CreateQuery;
import dev.hearth.api.queries.SavedQuery;
import dev.hearth.api.queries.UpdateQuery;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.time.Clock;
import org.jdbi.v3.core.Jdbi;

/** HTTP routes of saved queries: translation only, one named handler a route. */
public final class SavedQueriesApi {
    private final SavedQueries service;

    private SavedQueriesApi(SavedQueries service) {
        this.service = service;
    }

    public static void register(RouteTable routes, Jdbi jdbi, Clock clock) {
        var store = new SavedQueryStore();
        new SavedQueriesApi(new SavedQueries(jdbi, store, clock)).routes(routes, store::workspaceOf);
    }

    private void routes(RouteTable routes, Scope.Locator locator) {
        var read = Scope.resource("qry", "query", locator, QUERY_READ);
        var write = Scope.resource("qry", "query", locator, QUERY_WRITE);
        routes.create("/workspaces/{ws}/queries", Scope.workspace(QUERY_WRITE), this::create).recalls(this::recall)
                .summary("Save an SQL query under a name").takes(CreateQuery.class)
                .example("{\"name\": \"Orders today\", \"sql\": \"select count(*) from orders where day = current_date\"}")
                .answers(Contract.one("query", SavedQuery.class));
        routes.add("GET", "/workspaces/{ws}/queries", Scope.workspace(QUERY_READ), this::list)
                .summary("The workspace's saved queries").paged().answers(Contract.page("queries", SavedQuery.class));
        routes.add("GET", "/queries/{qry}", read, this::get)
                .summary("A saved query, by id").answers(Contract.one("query", SavedQuery.class));
        routes.add("PATCH", "/queries/{qry}", write, this::update)
                .summary("Rename a saved query or change its text").takes(UpdateQuery.class)
                .answers(Contract.one("query", SavedQuery.class));
        routes.add("DELETE", "/queries/{qry}", write, this::delete)
                .summary("Delete a saved query (its name is free again)").answers(Contract.one("query", SavedQuery.class));
    }

    private Reply create(Exchange ex) {
        return Reply.status(201, Reply.one("query", service.create(ex.caller(), ex.workspace(), ex.body(CreateQuery.class))));
    }

    private Reply recall(Exchange ex, String id) {
        return Reply.status(201, Reply.one("query", service.get(ex.workspace(), id)));
    }

    private Reply list(Exchange ex) {
        return Reply.ok(Reply.page("queries", service.list(ex.workspace(), ex.page())));
    }

    private Reply get(Exchange ex) {
        return Reply.ok(Reply.one("query", service.get(ex.workspace(), ex.param("qry"))));
    }

    private Reply update(Exchange ex) {
        return Reply.ok(Reply.one("query", service.update(ex.caller(), ex.workspace(), ex.param("qry"),
                ex.body(UpdateQuery.class))));
    }

    private Reply delete(Exchange ex) {
        return Reply.ok(Reply.one("query", service.delete(ex.caller(), ex.workspace(), ex.param("qry"))));
    }
}
