package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.JsonTrees;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth invitations}: invite people to a workspace by email, and accept invitations. */
@Command(name = "invitations", addMethodSubcommands = false, description = "Invite people to a workspace.")
final class InvitationsCommand {
    @ParentCommand
    Cli cli;

    @Mixin
    WorkspaceOption workspace;

    @Command(name = "create", description = "Invite an address to a role; the invitation is mailed.")
    int create(@Parameters(paramLabel = "EMAIL", description = "the email address to invite") String email,
               @Option(names = "--role", paramLabel = "ROLE", required = true, description = "admin, editor or viewer") String role) {
        show(cli.client().create("/workspaces/" + workspace.required() + "/invitations", Map.of("email", email, "role", role)));
        return 0;
    }

    @Command(name = "list", description = "List invitations.")
    int list(@Option(names = "--state", paramLabel = "STATE", defaultValue = "pending", description = "pending, expired or all (default ${DEFAULT-VALUE})") String state) {
        var answer = Cli.everyPage(cli.client(), "/workspaces/" + workspace.required() + "/invitations?state=" + state,
                "invitations");
        cli.print(answer, () -> table(answer.path("invitations")));
        return 0;
    }

    @Command(name = "get", description = "Show an invitation.")
    int get(@Parameters(paramLabel = "ID", description = "the invitation's id") String id) {
        show(cli.client().get("/invitations/" + id));
        return 0;
    }

    @Command(name = "resend", description = "Mail an invitation again, with a new expiry.")
    int resend(@Parameters(paramLabel = "ID", description = "the invitation's id") String id) {
        show(cli.client().post("/invitations/" + id + "/resend", Map.of()));
        return 0;
    }

    @Command(name = "revoke", description = "Withdraw an invitation.")
    int revoke(@Parameters(paramLabel = "ID", description = "the invitation's id") String id) {
        show(cli.client().delete("/invitations/" + id));
        return 0;
    }

    @Command(name = "accept", description = "Accept an invitation sent to the address you are signed in with.")
    int accept(@Parameters(paramLabel = "ID", description = "the invitation's id") String id) {
        show(cli.client().post("/invitations/" + id + "/accept", Map.of()));
        return 0;
    }

    private void show(JsonNode answer) {
        var all = JsonTrees.array().add(answer.path("invitation"));
        cli.print(answer, () -> table(all));
    }

    private void table(Iterable<JsonNode> rows) {
        var table = new Table("ID", "EMAIL", "ROLE", "STATE", "MAILED", "EXPIRES");
        rows.forEach(i -> table.row(i.path("id").asText(), i.path("email").asText(), i.path("role").asText(),
                i.path("state").asText(), i.path("email_sent").asBoolean() ? "yes" : "not yet",
                i.path("expires_at").asText()));
        table.print(cli.out());
    }
}
