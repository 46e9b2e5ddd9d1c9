package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import java.util.LinkedHashMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth checkpoints}: a computer's checkpoints (memory, overlay and /data). */
@Command(name = "checkpoints", aliases = "chk", description = "Manage a computer's checkpoints.")
final class CheckpointsCommand {
    @ParentCommand
    Cli cli;

    @Mixin
    WorkspaceOption workspace;

    @Command(name = "create", description = "Checkpoint a computer (it pauses for the checkpoint only); waits unless --no-wait.")
    int create(@Parameters(paramLabel = "COMPUTER") String computer,
               @Option(names = "--name", description = "a name to restore it by (default: the time, UTC)") String name,
               @Option(names = "--no-wait") boolean noWait) {
        var body = new LinkedHashMap<String, Object>();
        if (name != null) {
            body.put("name", name);
        }
        var client = cli.client();
        var answer = client.create(path(computer, ""), body);
        if (!noWait) {
            OperationsCommand.follow(client, answer.path("operations").get(0).asText(), cli.context.err());
            answer = client.get(path(computer, "/" + answer.path("checkpoint").path("id").asText()));
        }
        show(answer);
        return answer.path("checkpoint").path("state").asText().equals("failed") ? 1 : 0;
    }

    @Command(name = "list", description = "List a computer's checkpoints, newest first.")
    int list(@Parameters(paramLabel = "COMPUTER") String computer) {
        var answer = Cli.everyPage(cli.client(), path(computer, ""), "checkpoints");
        cli.print(answer, () -> table(answer.path("checkpoints")));
        return 0;
    }

    @Command(name = "get", description = "Show a checkpoint (by id or name).")
    int get(@Parameters(paramLabel = "COMPUTER") String computer, @Parameters(paramLabel = "CHECKPOINT") String checkpoint) {
        show(cli.client().get(path(computer, "/" + checkpoint)));
        return 0;
    }

    @Command(name = "delete", description = "Delete a checkpoint and its files; waits unless --no-wait.")
    int delete(@Parameters(paramLabel = "COMPUTER") String computer, @Parameters(paramLabel = "CHECKPOINT") String checkpoint,
               @Option(names = "--no-wait") boolean noWait) {
        var client = cli.client();
        var answer = client.delete(path(computer, "/" + checkpoint));
        if (!noWait) {
            OperationsCommand.follow(client, answer.path("operations").get(0).asText(), cli.context.err());
            answer = client.get(path(computer, "/" + answer.path("checkpoint").path("id").asText()));
        }
        show(answer);
        return 0;
    }

    private String path(String computer, String rest) {
        return "/computers/" + computer + "/checkpoints" + rest + "?workspace=" + workspace.required();
    }

    private void show(JsonNode answer) {
        cli.print(answer, () -> table(Json.mapper().createArrayNode().add(answer.path("checkpoint"))));
    }

    private void table(Iterable<JsonNode> rows) {
        table(cli.out(), rows);
    }

    static void table(java.io.PrintStream out, Iterable<JsonNode> rows) {
        var table = new Table("NAME", "ID", "STATE", "GENERATION", "SIZE", "CREATED", "ERROR");
        rows.forEach(c -> table.row(c.path("name").asText(), c.path("id").asText(),
                c.path("deleted_at").isNull() ? c.path("state").asText() : "deleted", c.path("generation").asText(),
                size(c.path("size_bytes").asLong()), c.path("created_at").asText(),
                c.path("error").isNull() ? "-" : c.path("error").path("message").asText()));
        table.print(out);
    }

    private static String size(long bytes) {
        return bytes < 1 << 20 ? (bytes >> 10) + " KiB" : String.format("%.1f MiB", bytes / 1048576.0);
    }
}
