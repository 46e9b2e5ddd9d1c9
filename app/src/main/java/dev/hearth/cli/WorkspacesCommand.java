package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth workspaces}: create, list, show, rename and delete workspaces. */
@Command(name = "workspaces", addMethodSubcommands = false, aliases = "ws", description = "Manage workspaces.")
final class WorkspacesCommand {
    @ParentCommand
    Cli cli;

    @Command(name = "create", description = "Create a workspace; you become its admin.")
    int create(@Parameters(paramLabel = "NAME", description = "the new workspace's name") String name) {
        show(cli.client().create("/workspaces", Map.of("name", name)));
        return 0;
    }

    @Command(name = "list", description = "List your workspaces.")
    int list() {
        var answer = Cli.everyPage(cli.client(), "/workspaces", "workspaces");
        cli.print(answer, () -> {
            var table = new Table("NAME", "ID", "STATE", "CREATED");
            answer.path("workspaces").forEach(w -> table.row(w.path("name").asText(), w.path("id").asText(),
                    w.path("state").asText(), w.path("created_at").asText()));
            table.print(cli.out());
        });
        return 0;
    }

    @Command(name = "get", description = "Show a workspace (by name or id).")
    int get(@Parameters(paramLabel = "WORKSPACE", description = "the workspace's name or id") String workspace) {
        show(cli.client().get("/workspaces/" + workspace));
        return 0;
    }

    @Command(name = "rename", description = "Rename a workspace.")
    int rename(@Parameters(paramLabel = "WORKSPACE", description = "the workspace's name or id") String workspace, @Parameters(paramLabel = "NEW_NAME", description = "the new name") String name) {
        show(cli.client().patch("/workspaces/" + workspace, Map.of("name", name)));
        return 0;
    }

    @Command(name = "delete", description = "Delete an empty workspace.")
    int delete(@Parameters(paramLabel = "WORKSPACE", description = "the workspace's name or id") String workspace) {
        show(cli.client().delete("/workspaces/" + workspace));
        return 0;
    }

    private void show(JsonNode answer) {
        cli.print(answer, () -> {
            var w = answer.path("workspace");
            var table = new Table("NAME", "ID", "STATE", "CREATED", "DELETED");
            table.row(w.path("name").asText(), w.path("id").asText(), w.path("state").asText(),
                    w.path("created_at").asText(), w.path("deleted_at").asText("-"));
            table.print(cli.out());
        });
    }
}
