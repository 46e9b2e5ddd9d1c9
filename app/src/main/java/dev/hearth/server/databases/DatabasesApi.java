package dev.hearth.server.databases;

import static dev.hearth.server.tenancy.Action.DATABASE_READ;
import static dev.hearth.server.tenancy.Action.DATABASE_WRITE;

import dev.hearth.server.checkpoints.CreateCheckpoint;
import dev.hearth.server.databases.DatabaseService.CreateDatabase;
import dev.hearth.server.databases.DatabaseService.UpdateDatabase;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.util.List;
import java.util.Map;

/** HTTP routes of databases and their checkpoints: translation only. */
public final class DatabasesApi {
    private DatabasesApi() {
    }

    public static void register(RouteTable routes, DatabaseService service, DatabaseCheckpoints checkpoints,
                                DatabaseStore store) {
        Scope.Locator locator = store::workspaceOf;
        routes.create("/workspaces/{ws}/databases", Scope.workspace(DATABASE_WRITE),
                ex -> Reply.status(201, Reply.one("database", service.create(ex.workspace(), ex.body(CreateDatabase.class)))));
        routes.add("GET", "/workspaces/{ws}/databases", Scope.workspace(DATABASE_READ),
                ex -> Reply.ok(Reply.page("databases", service.list(ex.workspace(), ex.page()))));
        routes.add("GET", "/databases/{db}", Scope.resource("db", "database", locator, DATABASE_READ),
                ex -> Reply.ok(Reply.one("database", service.get(ex.workspace(), ex.param("db")))));
        routes.add("PATCH", "/databases/{db}", Scope.resource("db", "database", locator, DATABASE_WRITE),
                ex -> Reply.ok(Reply.one("database", service.update(ex.workspace(), ex.param("db"),
                        ex.body(UpdateDatabase.class)))));
        routes.add("DELETE", "/databases/{db}", Scope.resource("db", "database", locator, DATABASE_WRITE),
                ex -> Reply.ok(Reply.one("database", service.delete(ex.workspace(), ex.param("db")))));
        routes.add("GET", "/databases/{db}/connection", Scope.resource("db", "database", locator, DATABASE_READ),
                ex -> Reply.ok(Reply.one("connection", service.connection(ex.workspace(), ex.param("db"), ex.role()))));
        routes.add("POST", "/databases/{db}/reset_credentials", Scope.resource("db", "database", locator, DATABASE_WRITE),
                ex -> {
                    ex.noBody();
                    var connection = service.resetCredentials(ex.workspace(), ex.param("db"));
                    // A replay of the same Idempotency-Key answers the password redacted.
                    return Reply.withReplay(200, Reply.one("connection", connection),
                            Reply.one("connection", connection.redacted()));
                });
        routes.add("POST", "/databases/{db}/sleep", Scope.resource("db", "database", locator, DATABASE_WRITE), ex -> {
            ex.bodyOr(SleepRequest.class, new SleepRequest(null));
            return Reply.ok(Reply.one("database", service.sleep(ex.workspace(), ex.param("db"))));
        });
        routes.add("POST", "/databases/{db}/wake", Scope.resource("db", "database", locator, DATABASE_WRITE), ex -> {
            ex.noBody();
            return Reply.ok(Reply.one("database", service.wake(ex.workspace(), ex.param("db"))));
        });
        routes.create("/databases/{db}/checkpoints", Scope.resource("db", "database", locator, DATABASE_WRITE), ex ->
                Reply.status(202, checkpoints.create(ex.workspace(), ex.param("db"),
                        ex.bodyOr(CreateCheckpoint.class, new CreateCheckpoint(null))).body()));
        routes.add("GET", "/databases/{db}/checkpoints", Scope.resource("db", "database", locator, DATABASE_READ),
                ex -> Reply.ok(Reply.page("checkpoints", checkpoints.list(ex.workspace(), ex.param("db"), ex.page()))));
        routes.add("GET", "/databases/{db}/checkpoints/{chk}", Scope.resource("db", "database", locator, DATABASE_READ),
                ex -> Reply.ok(Map.of("checkpoint", checkpoints.get(ex.workspace(), ex.param("db"), ex.param("chk")),
                        "operations", List.of())));
        routes.add("DELETE", "/databases/{db}/checkpoints/{chk}",
                Scope.resource("db", "database", locator, DATABASE_WRITE), ex ->
                        Reply.status(202, checkpoints.delete(ex.workspace(), ex.param("db"), ex.param("chk")).body()));
    }


    /** {@code POST /databases/{db}/sleep}: {@code force} is accepted and ignored, as for computers. */
    record SleepRequest(Boolean force) {
    }

}
