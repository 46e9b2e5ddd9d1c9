package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import java.io.PrintStream;
import java.util.Objects;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth operations}: long-running work and its outcome. */
@Command(name = "operations", addMethodSubcommands = false, aliases = "ops", description = "Follow long-running operations.")
final class OperationsCommand {
    @ParentCommand
    Cli cli;

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
