package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.JsonTrees;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth databases roles} and {@code hearth databases dbs}: the PostgreSQL roles and databases inside one. */
final class DatabaseRolesCommand {
    private DatabaseRolesCommand() {
    }

    /** {@code hearth databases roles}: login roles (never superusers); a new password is shown once. */
    @Command(name = "roles", description = "Manage a database's PostgreSQL roles (each call wakes it).")
    static final class Roles {
        @ParentCommand
        DatabasesCommand databases;

        @Command(name = "list", description = "List a database's login roles.")
        int list(@Parameters(paramLabel = "DATABASE", description = "the database's name or id") String database) {
            var answer = databases.cli.client().get(databases.path(database, "/roles"));
            databases.cli.print(answer, () -> roles(answer.path("roles")));
            return 0;
        }

        @Command(name = "create", description = "Create a login role; prints its password (shown once) and connection.")
        int create(@Parameters(index = "0", paramLabel = "DATABASE", description = "the database's name or id") String database,
                   @Parameters(index = "1", paramLabel = "ROLE", description = "the new role's name") String role) {
            var answer = databases.cli.client().create(databases.path(database, "/roles"), Map.of("name", role));
            databases.cli.print(answer, () -> databases.connectionTable(answer.path("connection")));
            return 0;
        }

        @Command(name = "reset-password", description = "Set a new password for a role (its sessions end); prints it.")
        int resetPassword(@Parameters(index = "0", paramLabel = "DATABASE", description = "the database's name or id") String database,
                          @Parameters(index = "1", paramLabel = "ROLE", description = "the role's name") String role) {
            var answer = databases.cli.client().post(databases.path(database, "/roles/" + role + "/reset_password"), Map.of());
            databases.cli.print(answer, () -> databases.connectionTable(answer.path("connection")));
            return 0;
        }

        @Command(name = "delete", description = "Delete a role (not the owner role, nor one that owns objects).")
        int delete(@Parameters(index = "0", paramLabel = "DATABASE", description = "the database's name or id") String database,
                   @Parameters(index = "1", paramLabel = "ROLE", description = "the role's name") String role) {
            var answer = databases.cli.client().delete(databases.path(database, "/roles/" + role));
            databases.cli.print(answer, () -> roles(JsonTrees.array().add(answer.path("role"))));
            return 0;
        }

        private void roles(Iterable<JsonNode> rows) {
            var table = new Table("NAME", "OWNER");
            rows.forEach(r -> table.row(r.path("name").asText(), r.path("owner").asBoolean() ? "yes" : "-"));
            table.print(databases.cli.out());
        }
    }

    /** {@code hearth databases dbs}: the PostgreSQL databases inside a Hearth database. */
    @Command(name = "dbs", description = "Manage the PostgreSQL databases inside a database (each call wakes it).")
    static final class Dbs {
        @ParentCommand
        DatabasesCommand databases;

        @Command(name = "list", description = "List the PostgreSQL databases inside a database.")
        int list(@Parameters(paramLabel = "DATABASE", description = "the database's name or id") String database) {
            var answer = databases.cli.client().get(databases.path(database, "/pg_databases"));
            databases.cli.print(answer, () -> table(answer.path("pg_databases")));
            return 0;
        }

        @Command(name = "create", description = "Create a PostgreSQL database inside a database.")
        int create(@Parameters(index = "0", paramLabel = "DATABASE", description = "the database's name or id") String database,
                   @Parameters(index = "1", paramLabel = "NAME", description = "the new PostgreSQL database's name") String name,
                   @Option(names = "--owner", paramLabel = "ROLE", description = "the role that owns it (default: the owner role)") String owner) {
            var body = new LinkedHashMap<String, Object>(Map.of("name", name));
            if (owner != null) {
                body.put("owner_name", owner);
            }
            var answer = databases.cli.client().create(databases.path(database, "/pg_databases"), body);
            databases.cli.print(answer, () -> table(JsonTrees.array().add(answer.path("pg_database"))));
            return 0;
        }

        @Command(name = "delete", description = "Delete a PostgreSQL database (its sessions end; not the default one).")
        int delete(@Parameters(index = "0", paramLabel = "DATABASE", description = "the database's name or id") String database,
                   @Parameters(index = "1", paramLabel = "NAME", description = "the PostgreSQL database's name") String name) {
            var answer = databases.cli.client().delete(databases.path(database, "/pg_databases/" + name));
            databases.cli.print(answer, () -> table(JsonTrees.array().add(answer.path("pg_database"))));
            return 0;
        }

        private void table(Iterable<JsonNode> rows) {
            var table = new Table("NAME", "OWNER", "DEFAULT");
            rows.forEach(d -> table.row(d.path("name").asText(), d.path("owner_name").asText(),
                    d.path("default").asBoolean() ? "yes" : "-"));
            table.print(databases.cli.out());
        }
    }
}
