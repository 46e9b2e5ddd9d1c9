package dev.hearth.server.databases;

import dev.hearth.api.databases.Connection;
import dev.hearth.api.databases.CreateDatabaseRole;
import dev.hearth.api.databases.CreatePgDatabase;
import dev.hearth.api.databases.DatabaseRole;
import dev.hearth.api.databases.PgDatabase;
import dev.hearth.server.databases.DatabaseRoles.WithPassword;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.util.List;
import java.util.Map;

/**
 * HTTP routes of a database's PostgreSQL roles and databases (Neon's {@code /roles} and
 * {@code /databases} of a branch): translation only, one named handler a route.
 */
final class RolesApi {
    private final DatabaseRoles roles;

    private RolesApi(DatabaseRoles roles) {
        this.roles = roles;
    }

    static void register(RouteTable routes, DatabaseRoles roles, Scope read, Scope write) {
        new RolesApi(roles).routes(routes, read, write);
    }

    private void routes(RouteTable routes, Scope read, Scope write) {
        var withPassword = Contract.fields("role", Contract.of(DatabaseRole.class), "connection", Contract.of(Connection.class),
                "operations", Contract.arrayOf(String.class));
        routes.add("GET", "/databases/{db}/roles", read, this::list)
                .summary("The database's PostgreSQL login roles; wakes it")
                .answers(Contract.all("roles", DatabaseRole.class));
        routes.create("/databases/{db}/roles", write, this::create)
                .summary("A new login role (never a superuser) and its password, shown once; wakes the database")
                .takes(CreateDatabaseRole.class).example("{\"name\": \"reporter\"}").answers(withPassword);
        routes.add("POST", "/databases/{db}/roles/{role}/reset_password", write, this::resetPassword)
                .summary("A new password for the role (its sessions end); the owner role's is reset_credentials")
                .answers(withPassword);
        routes.add("DELETE", "/databases/{db}/roles/{role}", write, this::delete)
                .summary("Drop a role and the privileges granted to it (its sessions end); not the owner role, nor one that owns objects")
                .answers(Contract.one("role", DatabaseRole.class));
        routes.add("GET", "/databases/{db}/pg_databases", read, this::databases)
                .summary("The PostgreSQL databases inside the database; wakes it")
                .answers(Contract.all("pg_databases", PgDatabase.class));
        routes.create("/databases/{db}/pg_databases", write, this::createDatabase)
                .summary("A new PostgreSQL database, owned by the owner role unless owner_name says; wakes the database")
                .takes(CreatePgDatabase.class).example("{\"name\": \"analytics\", \"owner_name\": \"reporter\"}")
                .answers(Contract.one("pg_database", PgDatabase.class));
        routes.add("DELETE", "/databases/{db}/pg_databases/{name}", write, this::deleteDatabase)
                .summary("Drop a PostgreSQL database (its sessions end); not the default one")
                .answers(Contract.one("pg_database", PgDatabase.class));
    }

    private Reply list(Exchange ex) {
        return Reply.ok(Map.of("roles", roles.list(ex.workspace(), ex.param("db"))));
    }

    private Reply create(Exchange ex) {
        return withPassword(201, roles.create(ex.workspace(), ex.param("db"), ex.body(CreateDatabaseRole.class)));
    }

    private Reply resetPassword(Exchange ex) {
        ex.noBody();
        return withPassword(200, roles.resetPassword(ex.workspace(), ex.param("db"), ex.param("role")));
    }

    /** The password is shown once: a replay of the same Idempotency-Key answers it redacted. */
    private static Reply withPassword(int status, WithPassword answer) {
        return Reply.withReplay(status, body(answer.role(), answer.connection()),
                body(answer.role(), answer.connection().redacted()));
    }

    private static Map<String, Object> body(DatabaseRole role, Connection connection) {
        return Map.of("role", role, "connection", connection, "operations", List.of());
    }

    private Reply delete(Exchange ex) {
        return Reply.ok(Reply.one("role", roles.delete(ex.workspace(), ex.param("db"), ex.param("role"))));
    }

    private Reply databases(Exchange ex) {
        return Reply.ok(Map.of("pg_databases", roles.databases(ex.workspace(), ex.param("db"))));
    }

    private Reply createDatabase(Exchange ex) {
        return Reply.status(201, Reply.one("pg_database", roles.createDatabase(ex.workspace(), ex.param("db"),
                ex.body(CreatePgDatabase.class))));
    }

    private Reply deleteDatabase(Exchange ex) {
        return Reply.ok(Reply.one("pg_database", roles.deleteDatabase(ex.workspace(), ex.param("db"),
                ex.param("name"))));
    }
}
