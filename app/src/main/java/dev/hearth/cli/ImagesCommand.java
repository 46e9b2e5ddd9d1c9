package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.JsonTrees;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth images}: pull images ahead of time, list and remove them. */
@Command(name = "images", addMethodSubcommands = false, description = "Manage a workspace's images.")
final class ImagesCommand {
    @ParentCommand
    Cli cli;

    @Mixin
    WorkspaceOption workspace;

    @Command(name = "pull", description = "Pull an image so computers of it start at once; waits unless --no-wait.")
    int pull(@Parameters(paramLabel = "REFERENCE", description = "an image reference, e.g. hearth/busybox or docker.io/library/debian:12") String reference, @Option(names = "--no-wait", description = "answer at once with the operation instead of waiting for it") boolean noWait) {
        var client = cli.client();
        var answer = client.create("/workspaces/" + workspace.required() + "/images", Map.of("reference", reference));
        if (!noWait && answer.path("operations").size() > 0) {
            var op = OperationsCommand.follow(client, answer.path("operations").get(0).asText(), cli.context.err());
            if (op.path("operation").path("state").asText().equals("failed")) {
                throw new IllegalArgumentException(op.path("operation").path("error").path("message").asText());
            }
            var pulled = find(reference);
            if (pulled.isPresent()) {
                answer = JsonTrees.object().set("image", pulled.get());
            }
        }
        var shown = answer;
        cli.print(shown, () -> table(JsonTrees.array().add(shown.path("image"))));
        return 0;
    }

    @Command(name = "list", description = "List the workspace's images.")
    int list() {
        var answer = Cli.everyPage(cli.client(), "/workspaces/" + workspace.required() + "/images", "images");
        cli.print(answer, () -> table(answer.path("images")));
        return 0;
    }

    @Command(name = "rm", description = "Forget an image; its files go once no computer uses it.")
    int rm(@Parameters(paramLabel = "REFERENCE", description = "an image reference, e.g. hearth/busybox or docker.io/library/debian:12") String reference) {
        var answer = cli.client().delete("/workspaces/" + workspace.required() + "/images/" + idOf(reference));
        cli.print(answer, () -> table(JsonTrees.array().add(answer.path("image"))));
        return 0;
    }

    private String idOf(String reference) {
        return find(reference).map(image -> image.path("id").asText()).orElse(reference);
    }

    /** The workspace's image of that reference, if it has one. */
    private Optional<JsonNode> find(String reference) {
        for (var image : Cli.everyPage(cli.client(), "/workspaces/" + workspace.required() + "/images", "images").path("images")) {
            if (image.path("reference").asText().equals(reference)) {
                return Optional.of(image);
            }
        }
        return Optional.empty();
    }

    private void table(Iterable<JsonNode> rows) {
        var table = new Table("REFERENCE", "STATE", "DIGEST", "PULLED");
        rows.forEach(i -> table.row(i.path("reference").asText(), i.path("state").asText(), i.path("digest").asText("-"),
                i.path("pulled_at").asText("-")));
        table.print(cli.out());
    }
}
