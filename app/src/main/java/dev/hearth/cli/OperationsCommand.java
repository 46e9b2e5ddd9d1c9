package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth operations}: long-running work and its outcome. */
@Command(name = "operations", addMethodSubcommands = false, aliases = "ops", description = "Follow long-running operations.")
final class OperationsCommand {
    @ParentCommand
    Cli cli;

    @Mixin
    WorkspaceOption workspace;

    @Command(name = "list", description = "List the workspace's operations, newest first.")
    int list(@Option(names = "--state", paramLabel = "STATE", description = "running, succeeded or failed") String state,
             @Option(names = "--resource", paramLabel = "ID", description = "only operations on this resource") String resource,
             @Option(names = "--limit", paramLabel = "N", defaultValue = "20", description = "at most N (1 to 100; default 20)") int limit) {
        var query = new StringBuilder("?limit=").append(limit);
        if (state != null) {
            query.append("&state=").append(encode(state));
        }
        if (resource != null) {
            query.append("&resource=").append(encode(resource));
        }
        var answer = cli.client().get("/workspaces/" + workspace.required() + "/operations" + query);
        cli.print(answer, () -> {
            var table = new Table("ID", "KIND", "STATE", "RESOURCE", "CREATED", "ERROR");
            for (var op : answer.path("operations")) {
                table.row(op.path("id").asText(), op.path("kind").asText(), op.path("state").asText(),
                        op.path("resource").asText("-"), op.path("created_at").asText(),
                        op.path("error").isNull() ? "-" : op.path("error").path("message").asText());
            }
            table.print(cli.out());
        });
        return 0;
    }

    @Command(name = "get", description = "Show an operation; with --wait, follow it until it finishes.")
    int get(@Parameters(paramLabel = "OP", description = "the operation's id") String id, @Option(names = "--wait", description = "wait until the operation succeeds or fails") boolean wait) {
        var client = cli.client();
        var operation = wait ? follow(client, id, cli.context.err()) : client.get("/operations/" + id);
        cli.print(operation, () -> {
            var op = operation.path("operation");
            var table = new Table("ID", "KIND", "STATE", "RESOURCE", "PROGRESS", "ERROR");
            table.row(op.path("id").asText(), op.path("kind").asText(), op.path("state").asText(),
                    op.path("resource").asText("-"), op.path("progress").asText("-"),
                    op.path("error").isNull() ? "-" : op.path("error").path("message").asText());
            table.print(cli.out());
        });
        return operation.path("operation").path("state").asText().equals("failed") ? 1 : 0;
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    /** Long-polls until the operation is no longer running, printing each new line of progress. */
    static JsonNode follow(HearthClient client, String id, PrintStream progress) {
        String last = null;
        while (true) {
            var answer = client.get("/operations/" + id + "?wait=20");
            var op = answer.path("operation");
            String now = op.path("progress").asText(null);
            if (now != null && !Objects.equals(now, last)) {
                progress.println(op.path("kind").asText() + ": " + now);
                last = now;
            }
            if (!op.path("state").asText().equals("running")) {
                return answer;
            }
        }
    }
}
