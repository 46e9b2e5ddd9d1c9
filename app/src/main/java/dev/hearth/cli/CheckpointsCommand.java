package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.JsonTrees;
import dev.hearth.client.HearthClient;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth checkpoints}: a computer's checkpoints (memory, overlay and /data). */
@Command(name = "checkpoints", addMethodSubcommands = false, aliases = "chk", description = "Manage a computer's checkpoints.")
final class CheckpointsCommand {
    @ParentCommand
    Cli cli;

    @Mixin
    WorkspaceOption workspace;

    @Command(name = "create", description = "Checkpoint a computer (it pauses for the checkpoint only); waits unless --no-wait.")
    int create(@Parameters(paramLabel = "COMPUTER", description = "the computer's name or id") String computer,
               @Option(names = "--name", paramLabel = "NAME", description = "a name to restore it by (default: the time, UTC)") String name,
               @Option(names = "--no-wait", description = "answer at once with the operation instead of waiting for it") boolean noWait) {
        return create(cli, at(computer), name, noWait);
    }

    @Command(name = "list", description = "List a computer's checkpoints, newest first.")
    int list(@Parameters(paramLabel = "COMPUTER", description = "the computer's name or id") String computer) {
        return list(cli, at(computer));
    }

    @Command(name = "get", description = "Show a checkpoint (by id or name).")
    int get(@Parameters(paramLabel = "COMPUTER", description = "the computer's name or id") String computer, @Parameters(paramLabel = "CHECKPOINT", description = "the checkpoint's name or id") String checkpoint) {
        return get(cli, at(computer), checkpoint);
    }

    @Command(name = "delete", description = "Delete a checkpoint and its files; waits unless --no-wait.")
    int delete(@Parameters(paramLabel = "COMPUTER", description = "the computer's name or id") String computer, @Parameters(paramLabel = "CHECKPOINT", description = "the checkpoint's name or id") String checkpoint,
               @Option(names = "--no-wait", description = "answer at once with the operation instead of waiting for it") boolean noWait) {
        return delete(cli, at(computer), checkpoint, noWait);
    }

    /** The computer's checkpoints route, then {@code rest} ("" or "/CHECKPOINT"). */
    private UnaryOperator<String> at(String computer) {
        return rest -> "/computers/" + computer + "/checkpoints" + rest + "?workspace=" + workspace.required();
    }

    // The commands' work, shared with `hearth databases checkpoints`: `at` maps "" or "/CHECKPOINT"
    // to the route of the source's checkpoints.

    static int create(Cli cli, UnaryOperator<String> at, String name, boolean noWait) {
        var body = new LinkedHashMap<String, Object>();
        if (name != null) {
            body.put("name", name);
        }
        var client = cli.client();
        var answer = follow(cli, client, at, client.create(at.apply(""), body), noWait);
        return answer.path("checkpoint").path("state").asText().equals("failed") ? 1 : 0;
    }

    static int list(Cli cli, UnaryOperator<String> at) {
        var answer = Cli.everyPage(cli.client(), at.apply(""), "checkpoints");
        cli.print(answer, () -> table(cli.out(), answer.path("checkpoints")));
        return 0;
    }

    static int get(Cli cli, UnaryOperator<String> at, String checkpoint) {
        show(cli, cli.client().get(at.apply("/" + checkpoint)));
        return 0;
    }

    static int delete(Cli cli, UnaryOperator<String> at, String checkpoint, boolean noWait) {
        var client = cli.client();
        follow(cli, client, at, client.delete(at.apply("/" + checkpoint)), noWait);
        return 0;
    }

    /** Unless --no-wait, follows the answer's operation and reads the checkpoint again; shows it. */
    private static JsonNode follow(Cli cli, HearthClient client, UnaryOperator<String> at, JsonNode answer,
                                   boolean noWait) {
        if (!noWait && answer.path("operations").size() > 0) {
            OperationsCommand.follow(client, answer.path("operations").get(0).asText(), cli.context.err());
            answer = client.get(at.apply("/" + answer.path("checkpoint").path("id").asText()));
        }
        show(cli, answer);
        return answer;
    }

    private static void show(Cli cli, JsonNode answer) {
        cli.print(answer, () -> table(cli.out(), JsonTrees.array().add(answer.path("checkpoint"))));
    }

    static void table(PrintStream out, Iterable<JsonNode> rows) {
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
