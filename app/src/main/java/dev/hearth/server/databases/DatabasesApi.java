package dev.hearth.server.databases;

import static dev.hearth.server.tenancy.Action.DATABASE_READ;
import static dev.hearth.server.tenancy.Action.DATABASE_WRITE;

import dev.hearth.api.databases.Connection;
import dev.hearth.api.databases.CreateDatabase;
import dev.hearth.api.databases.DatabaseHistory;
import dev.hearth.api.databases.DatabaseMetrics;
import dev.hearth.api.databases.DatabaseMetricsSample;
import dev.hearth.api.databases.DatabaseStatement;
import dev.hearth.api.databases.DatabaseView;
import dev.hearth.api.databases.OpenTimeTravel;
import dev.hearth.api.databases.RestoreDatabase;
import dev.hearth.api.databases.SleepDatabase;
import dev.hearth.api.databases.SqlQuery;
import dev.hearth.api.databases.SqlResult;
import dev.hearth.api.databases.TimeTravel;
import dev.hearth.api.databases.UpdateDatabase;
import dev.hearth.server.checkpoints.CheckpointRoutes;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.util.List;
import java.util.Map;

/** HTTP routes of databases and their checkpoints: translation only, one named handler a route. */
public final class DatabasesApi {
    private final DatabaseService service;
    private final DatabaseCheckpoints checkpoints;

    private DatabasesApi(DatabaseService service, DatabaseCheckpoints checkpoints) {
        this.service = service;
        this.checkpoints = checkpoints;
    }

    public static void register(RouteTable routes, DatabaseService service, DatabaseCheckpoints checkpoints,
                                DatabaseStore store) {
        new DatabasesApi(service, checkpoints).routes(routes, store::workspaceOf);
    }

    private void routes(RouteTable routes, Scope.Locator locator) {
        var read = Scope.resource("db", "database", locator, DATABASE_READ);
        var write = Scope.resource("db", "database", locator, DATABASE_WRITE);
        routes.create("/workspaces/{ws}/databases", Scope.workspace(DATABASE_WRITE), this::create).recalls(this::recall)
                .summary("Create a PostgreSQL database (asleep until first used)").takes(CreateDatabase.class)
                .example("{\"name\": \"app\", \"auto_sleep_seconds\": 300}")
                .answers(Contract.one("database", DatabaseView.class));
        routes.add("GET", "/workspaces/{ws}/databases", Scope.workspace(DATABASE_READ), this::list)
                .summary("The workspace's databases").paged().answers(Contract.page("databases", DatabaseView.class));
        routes.add("GET", "/databases/{db}", read, this::get)
                .summary("A database (never wakes it)").answers(Contract.one("database", DatabaseView.class));
        routes.add("PATCH", "/databases/{db}", write, this::update)
                .summary("Change protection, auto-sleep or disk size").takes(UpdateDatabase.class).answers(Contract.one("database", DatabaseView.class));
        routes.add("DELETE", "/databases/{db}", write, this::delete)
                .summary("Delete a database and its checkpoints").answers(Contract.one("database", DatabaseView.class));
        routes.add("GET", "/databases/{db}/metrics", read, this::metrics)
                .summary("Sessions and disk the database uses now (never wakes it)")
                .answers(Contract.one("metrics", DatabaseMetrics.class));
        routes.add("GET", "/databases/{db}/metrics/history", read, this::metricsHistory)
                .summary("The last hour of sessions, transactions a second and size, a sample every 10 s while awake")
                .query("since", "string", "a timestamp: only samples from then on")
                .query("until", "string", "a timestamp: only samples until then")
                .answers(Contract.all("samples", DatabaseMetricsSample.class));
        routes.add("POST", "/databases/{db}/restore", write, this::restore)
                .summary("Roll the database back to a moment in place; what it was becomes a branch")
                .takes(RestoreDatabase.class).example("{\"at\": \"2026-11-27T14:02:00Z\"}")
                .answers(Contract.fields("database", Contract.of(DatabaseView.class), "backup", Contract.of(DatabaseView.class),
                        "operations", Contract.arrayOf(String.class)));
        routes.create("/databases/{db}/time_travels", write, this::openTimeTravel)
                .summary("A read-only connection to the database as it was at a moment, until it expires")
                .takes(OpenTimeTravel.class).example("{\"at\": \"2026-11-27T14:02:00Z\", \"ttl_seconds\": 600}")
                .answers(Contract.one("time_travel", TimeTravel.class));
        routes.add("GET", "/databases/{db}/time_travels", read, this::timeTravels)
                .summary("The database's open time travels (passwords redacted)")
                .answers(Contract.all("time_travels", TimeTravel.class));
        routes.add("DELETE", "/databases/{db}/time_travels/{id}", write, this::endTimeTravel)
                .summary("End a time travel now: its sessions end and its cluster goes")
                .answers(Contract.one("time_travel", TimeTravel.class));
        routes.add("GET", "/databases/{db}/insights", read, this::insights)
                .summary("The statements the database spends most time on (pg_stat_statements); wakes it")
                .query("order", "string", "total (default) or mean: the time of all calls, or of one")
                .query("limit", "integer", "how many, 1 to 100 (default 20)")
                .answers(Contract.all("statements", DatabaseStatement.class));
        routes.add("GET", "/databases/{db}/history", read, this::history)
                .summary("How far back the database can be branched: its window, bases and archived WAL")
                .answers(Contract.one("history", DatabaseHistory.class));
        routes.add("GET", "/databases/{db}/connection", read, this::connection)
                .summary("How to connect (the password only for editors and admins)")
                .answers(Contract.one("connection", Connection.class));
        routes.add("POST", "/databases/{db}/reset_credentials", write, this::resetCredentials)
                .summary("A new password").answers(Contract.one("connection", Connection.class));
        routes.add("POST", "/databases/{db}/sleep", write, this::sleep)
                .summary("Stop the cluster (sessions end)").mayTake(SleepDatabase.class).answers(Contract.one("database", DatabaseView.class));
        routes.add("POST", "/databases/{db}/wake", write, this::wake)
                .summary("Start the cluster").answers(Contract.one("database", DatabaseView.class));
        routes.add("POST", "/databases/{db}/query", read, this::query)
                .summary("Run one SQL statement as the owner (row cap, time limit; read-only for viewers)")
                .takes(SqlQuery.class).example("{\"sql\": \"select 1\"}")
                .answers(Contract.one("result", SqlResult.class));
        RolesApi.register(routes, service.roles(), read, write);
        CheckpointRoutes.register(routes, "database", "db", read, write,
                "Checkpoint the database (a checkpoint.create operation)", checkpoints);
    }

    private Reply create(Exchange ex) {
        return Reply.status(201, Reply.one("database", service.create(ex.workspace(), ex.body(CreateDatabase.class))));
    }

    private Reply recall(Exchange ex, String id) {
        return Reply.status(201, Reply.one("database", service.get(ex.workspace(), id)));
    }

    private Reply list(Exchange ex) {
        return Reply.ok(Reply.page("databases", service.list(ex.workspace(), ex.page())));
    }

    private Reply get(Exchange ex) {
        return Reply.ok(Reply.one("database", service.get(ex.workspace(), ex.param("db"))));
    }

    private Reply update(Exchange ex) {
        return Reply.ok(Reply.one("database", service.update(ex.workspace(), ex.param("db"), ex.body(UpdateDatabase.class))));
    }

    private Reply delete(Exchange ex) {
        return Reply.ok(Reply.one("database", service.delete(ex.workspace(), ex.param("db"))));
    }

    private Reply insights(Exchange ex) {
        Integer limit = ex.query("limit").map(DatabasesApi::integer).orElse(null);
        return Reply.ok(Map.of("statements", service.insights().top(ex.workspace(), ex.param("db"),
                ex.query("order").orElse(null), limit)));
    }

    private static Integer integer(String text) {
        try {
            return Integer.valueOf(text);
        } catch (NumberFormatException e) {
            throw dev.hearth.api.ApiException.invalidField("limit", "a whole number from 1 to 100");
        }
    }

    private Reply history(Exchange ex) {
        return Reply.ok(Reply.one("history", service.moments().window(ex.workspace(), ex.param("db"))));
    }

    private Reply restore(Exchange ex) {
        var restored = service.moments().restore(ex.workspace(), ex.param("db"), ex.body(RestoreDatabase.class).at());
        return Reply.ok(Map.of("database", restored.database(), "backup", restored.backup(), "operations", List.of()));
    }

    /** The password is shown once: a replay of the same Idempotency-Key answers it redacted. */
    private Reply openTimeTravel(Exchange ex) {
        var trip = service.travels().open(ex.workspace(), ex.param("db"), ex.body(OpenTimeTravel.class));
        return Reply.withReplay(201, Reply.one("time_travel", trip), Reply.one("time_travel", trip.redacted()));
    }

    private Reply timeTravels(Exchange ex) {
        return Reply.ok(Map.of("time_travels", service.travels().list(ex.workspace(), ex.param("db"))));
    }

    private Reply endTimeTravel(Exchange ex) {
        return Reply.ok(Reply.one("time_travel", service.travels().end(ex.workspace(), ex.param("db"), ex.param("id"))));
    }

    private Reply metricsHistory(Exchange ex) {
        return Reply.ok(java.util.Map.of("samples", service.usage().history(ex.workspace(), ex.param("db"),
                ex.timeQuery("since"), ex.timeQuery("until"))));
    }

    private Reply metrics(Exchange ex) {
        return Reply.ok(Reply.one("metrics", service.usage().now(ex.workspace(), ex.param("db"))));
    }

    private Reply query(Exchange ex) {
        return Reply.ok(Reply.one("result", service.query(ex.workspace(), ex.param("db"),
                ex.body(SqlQuery.class), ex.role())));
    }

    private Reply connection(Exchange ex) {
        return Reply.ok(Reply.one("connection", service.connection(ex.workspace(), ex.param("db"), ex.role())));
    }

    private Reply resetCredentials(Exchange ex) {
        ex.noBody();
        var connection = service.resetCredentials(ex.workspace(), ex.param("db"));
        // A replay of the same Idempotency-Key answers the password redacted.
        return Reply.withReplay(200, Reply.one("connection", connection), Reply.one("connection", connection.redacted()));
    }

    private Reply sleep(Exchange ex) {
        ex.bodyOr(SleepDatabase.class, new SleepDatabase(null));
        return Reply.ok(Reply.one("database", service.sleep(ex.workspace(), ex.param("db"))));
    }

    private Reply wake(Exchange ex) {
        ex.noBody();
        return Reply.ok(Reply.one("database", service.wake(ex.workspace(), ex.param("db"))));
    }

}
