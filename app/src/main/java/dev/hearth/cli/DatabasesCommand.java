package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.JsonTrees;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth databases}: PostgreSQL databases, their connection details and checkpoints. */
@Command(name = "databases", addMethodSubcommands = false, aliases = "db", description = "Manage PostgreSQL databases.",
        subcommands = {DatabasesCommand.Checkpoints.class, DatabaseRolesCommand.Roles.class, DatabaseRolesCommand.Dbs.class,
                DatabaseTimeTravelCommand.class})
final class DatabasesCommand {
    @ParentCommand
    Cli cli;

    @Mixin
    WorkspaceOption workspace;

    @Command(name = "create", description = "Create a database (it starts asleep and wakes on the first connection).")
    int create(@Parameters(paramLabel = "NAME", description = "the new database's name") String name,
               @Option(names = "--version", paramLabel = "VERSION", description = "PostgreSQL major version (default: the newest installed)") String version,
               @Option(names = "--from-checkpoint", paramLabel = "ID|DATABASE/NAME",
                       description = "a branch: the checkpoint's data with new credentials") String fromCheckpoint,
               @Option(names = "--auto-sleep", paramLabel = "SECONDS", description = "sleep after this long without connections (0: never)") Integer autoSleep,
               @Option(names = "--disk-mb", paramLabel = "MB", description = "disk for the database's files (default 10240, a branch: its source's)") Integer diskMb,
               @Option(names = "--history-hours", paramLabel = "HOURS", description = "how far back it can be branched or restored (1 to 720, default 24)") Integer historyHours,
               @Option(names = "--protected", description = "refuse deletes until unprotected") boolean protect) {
        var body = new LinkedHashMap<String, Object>(Map.of("name", name));
        if (version != null) {
            body.put("version", version);
        }
        if (fromCheckpoint != null) {
            body.put("from_checkpoint", fromCheckpoint);
        }
        if (autoSleep != null) {
            body.put("auto_sleep_seconds", autoSleep);
        }
        if (diskMb != null) {
            body.put("disk_mb", diskMb);
        }
        if (historyHours != null) {
            body.put("history_hours", historyHours);
        }
        if (protect) {
            body.put("protected", true);
        }
        show(cli.client().create("/workspaces/" + workspace.required() + "/databases", body));
        return 0;
    }

    @Command(name = "list", description = "List the workspace's databases.")
    int list() {
        var answer = Cli.everyPage(cli.client(), "/workspaces/" + workspace.required() + "/databases", "databases");
        cli.print(answer, () -> table(answer.path("databases")));
        return 0;
    }

    @Command(name = "get", description = "Show a database (never wakes it).")
    int get(@Parameters(paramLabel = "NAME", description = "the database's name or id") String name) {
        show(cli.client().get(path(name, "")));
        return 0;
    }

    @Command(name = "update", description = "Change a database's settings.")
    int update(@Parameters(paramLabel = "NAME", description = "the database's name or id") String name,
               @Option(names = "--protected", arity = "1", paramLabel = "true|false", description = "refuse deletes until unprotected (true or false)") Boolean protect,
               @Option(names = "--auto-sleep", paramLabel = "SECONDS", description = "sleep after this many seconds idle") Integer autoSleep,
               @Option(names = "--disk-mb", paramLabel = "MB", description = "a bigger disk, from the cluster's next start") Integer diskMb,
               @Option(names = "--history-hours", paramLabel = "HOURS", description = "how far back it can be branched or restored (1 to 720)") Integer historyHours) {
        var body = new LinkedHashMap<String, Object>();
        if (protect != null) {
            body.put("protected", protect);
        }
        if (autoSleep != null) {
            body.put("auto_sleep_seconds", autoSleep);
        }
        if (diskMb != null) {
            body.put("disk_mb", diskMb);
        }
        if (historyHours != null) {
            body.put("history_hours", historyHours);
        }
        show(cli.client().patch(path(name, ""), body));
        return 0;
    }

    @Command(name = "delete", description = "Delete a database, its cluster and its checkpoints.")
    int delete(@Parameters(paramLabel = "NAME", description = "the database's name or id") String name) {
        show(cli.client().delete(path(name, "")));
        return 0;
    }

    @Command(name = "sleep", description = "Stop the database's cluster; the next connection wakes it.")
    int sleep(@Parameters(paramLabel = "NAME", description = "the database's name or id") String name) {
        show(cli.client().post(path(name, "/sleep"), Map.of()));
        return 0;
    }

    @Command(name = "wake", description = "Start the database's cluster now.")
    int wake(@Parameters(paramLabel = "NAME", description = "the database's name or id") String name) {
        show(cli.client().post(path(name, "/wake"), Map.of()));
        return 0;
    }

    @Command(name = "connection", description = "Show how to connect (the password for editors and admins).")
    int connection(@Parameters(paramLabel = "NAME", description = "the database's name or id") String name) {
        var answer = cli.client().get(path(name, "/connection"));
        cli.print(answer, () -> connectionTable(answer.path("connection")));
        return 0;
    }

    @Command(name = "metrics", description = "Show the sessions and disk a database uses now (never wakes it).")
    int metrics(@Parameters(paramLabel = "NAME", description = "the database's name or id") String name) {
        var answer = cli.client().get(path(name, "/metrics"));
        cli.print(answer, () -> {
            var m = answer.path("metrics");
            var table = new Table("STATE", "CONNECTIONS", "SIZE_MB");
            table.row(m.path("state").asText(), m.path("connections").isNull() ? "-" : m.path("connections").asText(),
                    Long.toString(m.path("size_bytes").asLong() >> 20));
            table.print(cli.out());
        });
        return 0;
    }

    @Command(name = "branch", description = "Make a database as another was at a moment (its commits at or before it).")
    int branch(@Parameters(index = "0", paramLabel = "SOURCE", description = "the database to branch, by name or id") String source,
               @Parameters(index = "1", paramLabel = "NAME", description = "the new database's name") String name,
               @Option(names = "--at", required = true, paramLabel = "MOMENT",
                       description = "a time, RFC 3339 (e.g. 2026-11-27T14:02:00Z), or an LSN (e.g. 0/16B3748); see `hearth db history`") String at) {
        show(cli.client().create("/workspaces/" + workspace.required() + "/databases",
                Map.of("name", name, "from_database", source, "at", at)));
        return 0;
    }

    @Command(name = "restore", description = "Roll a database back to a moment in place; what it was becomes a branch.")
    int restore(@Parameters(paramLabel = "NAME", description = "the database's name or id") String name,
                @Option(names = "--at", required = true, paramLabel = "MOMENT",
                        description = "a time, RFC 3339 (e.g. 2026-11-27T14:02:00Z), or an LSN (e.g. 0/16B3748); see `hearth db history`") String at) {
        var answer = cli.client().post(path(name, "/restore"), Map.of("at", at));
        cli.print(answer, () -> table(JsonTrees.array().add(answer.path("database")).add(answer.path("backup"))));
        return 0;
    }

    @Command(name = "insights", description = "Show the statements a database spends most time on (wakes it).")
    int insights(@Parameters(paramLabel = "NAME", description = "the database's name or id") String name,
                 @Option(names = "--order", paramLabel = "total|mean", defaultValue = "total", description = "by all calls' time (default) or one call's") String order,
                 @Option(names = "--limit", paramLabel = "N", defaultValue = "20", description = "how many, 1 to 100 (default 20)") int limit) {
        var answer = cli.client().get(path(name, "/insights") + "&order=" + order + "&limit=" + limit);
        cli.print(answer, () -> {
            var table = new Table("CALLS", "TOTAL_MS", "MEAN_MS", "ROWS", "QUERY");
            for (var s : answer.path("statements")) {
                table.row(s.path("calls").asText(), String.format("%.1f", s.path("total_millis").asDouble()),
                        String.format("%.2f", s.path("mean_millis").asDouble()), s.path("rows").asText(),
                        s.path("query").asText().replaceAll("\\s+", " "));
            }
            table.print(cli.out());
        });
        return 0;
    }

    @Command(name = "history", description = "Show how far back a database can be branched.")
    int history(@Parameters(paramLabel = "NAME", description = "the database's name or id") String name) {
        var answer = cli.client().get(path(name, "/history"));
        cli.print(answer, () -> {
            var h = answer.path("history");
            var table = new Table("EARLIEST", "LATEST", "BASES", "ARCHIVE_MB", "WINDOW_HOURS");
            table.row(h.path("earliest").asText("-"), h.path("latest").asText(), h.path("bases").asText(),
                    Long.toString(h.path("archive_bytes").asLong() >> 20), Long.toString(h.path("window_seconds").asLong() / 3600));
            table.print(cli.out());
        });
        return 0;
    }

    @Command(name = "reset-credentials", description = "Set a new password; every earlier one stops working.")
    int resetCredentials(@Parameters(paramLabel = "NAME", description = "the database's name or id") String name) {
        var answer = cli.client().post(path(name, "/reset_credentials"), Map.of());
        cli.print(answer, () -> connectionTable(answer.path("connection")));
        return 0;
    }

    String path(String name, String rest) {
        return "/databases/" + name + rest + "?workspace=" + workspace.required();
    }

    private void show(JsonNode answer) {
        cli.print(answer, () -> table(JsonTrees.array().add(answer.path("database"))));
    }

    private void table(Iterable<JsonNode> rows) {
        var table = new Table("NAME", "ID", "STATE", "VERSION", "PORT", "AUTO-SLEEP", "DISK", "PARENT", "ERROR");
        rows.forEach(d -> table.row(d.path("name").asText(), d.path("id").asText(),
                d.path("deleted_at").isNull() ? d.path("state").asText() : "deleted", d.path("version").asText(),
                d.path("port").asText(), d.path("auto_sleep_seconds").asInt() == 0 ? "never"
                        : d.path("auto_sleep_seconds").asText() + "s", disk(d.path("disk_mb").asInt()),
                d.path("parent").isNull() ? "-" : d.path("parent").asText(),
                d.path("error").isNull() ? "-" : d.path("error").path("message").asText()));
        table.print(cli.out());
    }

    private static String disk(int mb) {
        return mb == 0 ? "-" : mb % 1024 == 0 ? mb / 1024 + " GiB" : mb + " MiB";
    }

    void connectionTable(JsonNode c) {
        var out = cli.out();
        for (String field : new String[] {"host", "port", "database", "user", "password", "uri", "pooler_uri",
                "internal_uri", "internal_pooler_uri"}) {
            out.printf("%-14s %s%n", field.toUpperCase().replace('_', ' '), c.path(field).asText());
        }
        out.printf("%-14s %s%n", "RESET PENDING", c.path("reset_pending").asBoolean());
    }

    /** {@code hearth databases checkpoints}: a database's checkpoints. */
    @Command(name = "checkpoints", description = "Manage a database's checkpoints.")
    static final class Checkpoints {
        @ParentCommand
        DatabasesCommand databases;

        @Command(name = "create", description = "Checkpoint a database (awake: an online backup); waits unless --no-wait.")
        int create(@Parameters(paramLabel = "DATABASE", description = "the database's name or id") String database,
                   @Option(names = "--name", paramLabel = "NAME", description = "a name to branch from (default: the time, UTC)") String name,
                   @Option(names = "--no-wait", description = "answer at once with the operation instead of waiting for it") boolean noWait) {
            return CheckpointsCommand.create(databases.cli, at(database), name, noWait);
        }

        @Command(name = "list", description = "List a database's checkpoints, newest first.")
        int list(@Parameters(paramLabel = "DATABASE", description = "the database's name or id") String database) {
            return CheckpointsCommand.list(databases.cli, at(database));
        }

        @Command(name = "get", description = "Show a checkpoint (by id or name).")
        int get(@Parameters(paramLabel = "DATABASE", description = "the database's name or id") String database, @Parameters(paramLabel = "CHECKPOINT", description = "the checkpoint's name or id") String checkpoint) {
            return CheckpointsCommand.get(databases.cli, at(database), checkpoint);
        }

        @Command(name = "delete", description = "Delete a checkpoint and its files; waits unless --no-wait.")
        int delete(@Parameters(paramLabel = "DATABASE", description = "the database's name or id") String database,
                   @Parameters(paramLabel = "CHECKPOINT", description = "the checkpoint's name or id") String checkpoint, @Option(names = "--no-wait", description = "answer at once with the operation instead of waiting for it") boolean noWait) {
            return CheckpointsCommand.delete(databases.cli, at(database), checkpoint, noWait);
        }

        private UnaryOperator<String> at(String database) {
            return rest -> databases.path(database, "/checkpoints" + rest);
        }
    }
}
