package dev.hearth.server.databases;

import dev.hearth.api.SchemaName;
import static dev.hearth.server.tenancy.Action.DATABASE_READ;
import static dev.hearth.server.tenancy.Action.DATABASE_WRITE;

import dev.hearth.server.checkpoints.Checkpoint;
import dev.hearth.server.checkpoints.CreateCheckpoint;
import dev.hearth.server.databases.DatabaseService.CreateDatabase;
import dev.hearth.server.databases.DatabaseService.UpdateDatabase;
import dev.hearth.server.http.Contract;
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
                ex -> Reply.status(201, Reply.one("database", service.create(ex.workspace(), ex.body(CreateDatabase.class)))))
                .recalls((ex, id) -> Reply.status(201, Reply.one("database", service.get(ex.workspace(), id))))
                .summary("Create a PostgreSQL database (asleep until first used)").takes(CreateDatabase.class)
                .example("{\"name\": \"app\", \"auto_sleep_seconds\": 300}")
                .answers(Contract.one("database", Database.class));
        routes.add("GET", "/workspaces/{ws}/databases", Scope.workspace(DATABASE_READ),
                ex -> Reply.ok(Reply.page("databases", service.list(ex.workspace(), ex.page()))))
                .summary("The workspace's databases").paged().answers(Contract.page("databases", Database.class));
        routes.add("GET", "/databases/{db}", Scope.resource("db", "database", locator, DATABASE_READ),
                ex -> Reply.ok(Reply.one("database", service.get(ex.workspace(), ex.param("db")))))
                .summary("A database (never wakes it)").answers(Contract.one("database", Database.class));
        routes.add("PATCH", "/databases/{db}", Scope.resource("db", "database", locator, DATABASE_WRITE),
                ex -> Reply.ok(Reply.one("database", service.update(ex.workspace(), ex.param("db"),
                        ex.body(UpdateDatabase.class)))))
                .summary("Change protection, auto-sleep or disk size").takes(UpdateDatabase.class).answers(Contract.one("database", Database.class));
        routes.add("DELETE", "/databases/{db}", Scope.resource("db", "database", locator, DATABASE_WRITE),
                ex -> Reply.ok(Reply.one("database", service.delete(ex.workspace(), ex.param("db")))))
                .summary("Delete a database and its checkpoints").answers(Contract.one("database", Database.class));
        routes.add("GET", "/databases/{db}/metrics", Scope.resource("db", "database", locator, DATABASE_READ),
                ex -> Reply.ok(Reply.one("metrics", service.metrics(ex.workspace(), ex.param("db")))))
                .summary("Sessions and disk the database uses now (never wakes it)")
                .answers(Contract.one("metrics", DatabaseMetrics.class));
        routes.add("GET", "/databases/{db}/connection", Scope.resource("db", "database", locator, DATABASE_READ),
                ex -> Reply.ok(Reply.one("connection", service.connection(ex.workspace(), ex.param("db"), ex.role()))))
                .summary("How to connect (the password only for editors and admins)")
                .answers(Contract.one("connection", Connection.class));
        routes.add("POST", "/databases/{db}/reset_credentials", Scope.resource("db", "database", locator, DATABASE_WRITE),
                ex -> {
                    ex.noBody();
                    var connection = service.resetCredentials(ex.workspace(), ex.param("db"));
                    // A replay of the same Idempotency-Key answers the password redacted.
                    return Reply.withReplay(200, Reply.one("connection", connection),
                            Reply.one("connection", connection.redacted()));
                }).summary("A new password").answers(Contract.one("connection", Connection.class));
        routes.add("POST", "/databases/{db}/sleep", Scope.resource("db", "database", locator, DATABASE_WRITE), ex -> {
            ex.bodyOr(SleepRequest.class, new SleepRequest(null));
            return Reply.ok(Reply.one("database", service.sleep(ex.workspace(), ex.param("db"))));
        }).summary("Stop the cluster (sessions end)").mayTake(SleepRequest.class).answers(Contract.one("database", Database.class));
        routes.add("POST", "/databases/{db}/wake", Scope.resource("db", "database", locator, DATABASE_WRITE), ex -> {
            ex.noBody();
            return Reply.ok(Reply.one("database", service.wake(ex.workspace(), ex.param("db"))));
        }).summary("Start the cluster").answers(Contract.one("database", Database.class));
        routes.create("/databases/{db}/checkpoints", Scope.resource("db", "database", locator, DATABASE_WRITE), ex ->
                Reply.status(202, checkpoints.create(ex.workspace(), ex.param("db"),
                        ex.bodyOr(CreateCheckpoint.class, new CreateCheckpoint(null))).body()))
                .recalls((ex, id) -> Reply.status(202, Reply.one("checkpoint",
                        checkpoints.get(ex.workspace(), ex.param("db"), id))))
                .summary("Checkpoint the database (a checkpoint.create operation)").mayTake(CreateCheckpoint.class)
                .statuses(202).answers(Contract.one("checkpoint", Checkpoint.class));
        routes.add("GET", "/databases/{db}/checkpoints", Scope.resource("db", "database", locator, DATABASE_READ),
                ex -> Reply.ok(Reply.page("checkpoints", checkpoints.list(ex.workspace(), ex.param("db"), ex.page()))))
                .summary("The database's checkpoints, newest first").paged()
                .answers(Contract.page("checkpoints", Checkpoint.class));
        routes.add("GET", "/databases/{db}/checkpoints/{chk}", Scope.resource("db", "database", locator, DATABASE_READ),
                ex -> Reply.ok(Map.of("checkpoint", checkpoints.get(ex.workspace(), ex.param("db"), ex.param("chk")),
                        "operations", List.of())))
                .summary("A checkpoint, by id or name").answers(Contract.one("checkpoint", Checkpoint.class));
        routes.add("DELETE", "/databases/{db}/checkpoints/{chk}",
                Scope.resource("db", "database", locator, DATABASE_WRITE), ex ->
                        Reply.status(202, checkpoints.delete(ex.workspace(), ex.param("db"), ex.param("chk")).body()))
                .summary("Delete a checkpoint (a checkpoint.delete operation)").statuses(202).answers(Contract.one("checkpoint", Checkpoint.class));
    }


    /** {@code POST /databases/{db}/sleep}: {@code force} is accepted and ignored, as for computers. */
    @SchemaName("SleepDatabase")
    record SleepRequest(Boolean force) {
    }

}
