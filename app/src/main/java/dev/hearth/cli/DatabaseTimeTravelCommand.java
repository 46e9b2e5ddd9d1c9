package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.JsonTrees;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth databases time-travel}: read-only connections to a database as it was at a moment. */
@Command(name = "time-travel", description = "Read a database as it was at a moment, without restoring it.")
final class DatabaseTimeTravelCommand {
    @ParentCommand
    DatabasesCommand databases;

    @Command(name = "open", description = "Open a read-only connection at a moment; prints its URI (with the password).")
    int open(@Parameters(paramLabel = "DATABASE", description = "the database's name or id") String database,
             @Option(names = "--at", required = true, paramLabel = "MOMENT",
                     description = "a time, RFC 3339 (e.g. 2026-11-27T14:02:00Z), or an LSN (e.g. 0/16B3748); see `hearth db history`") String at,
             @Option(names = "--ttl", paramLabel = "SECONDS", description = "how long it stays open, 60 to 14400 (default 600)") Integer ttl) {
        var body = new LinkedHashMap<String, Object>(Map.of("at", at));
        if (ttl != null) {
            body.put("ttl_seconds", ttl);
        }
        var answer = databases.cli.client().create(databases.path(database, "/time_travels"), body);
        databases.cli.print(answer, () -> {
            table(JsonTrees.array().add(answer.path("time_travel")));
            databases.cli.out().println(answer.path("time_travel").path("connection").path("uri").asText());
        });
        return 0;
    }

    @Command(name = "list", description = "List a database's open time travels.")
    int list(@Parameters(paramLabel = "DATABASE", description = "the database's name or id") String database) {
        var answer = databases.cli.client().get(databases.path(database, "/time_travels"));
        databases.cli.print(answer, () -> table(answer.path("time_travels")));
        return 0;
    }

    @Command(name = "end", description = "End a time travel now (its sessions end).")
    int end(@Parameters(index = "0", paramLabel = "DATABASE", description = "the database's name or id") String database,
            @Parameters(index = "1", paramLabel = "ID", description = "the time travel's id") String id) {
        var answer = databases.cli.client().delete(databases.path(database, "/time_travels/" + id));
        databases.cli.print(answer, () -> table(JsonTrees.array().add(answer.path("time_travel"))));
        return 0;
    }

    private void table(Iterable<JsonNode> rows) {
        var table = new Table("ID", "AT", "PORT", "EXPIRES");
        rows.forEach(t -> table.row(t.path("id").asText(), t.path("at").asText(),
                t.path("connection").path("port").asText(), t.path("expires_at").asText()));
        table.print(databases.cli.out());
    }
}
