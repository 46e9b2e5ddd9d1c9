package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.JsonTrees;
import java.util.LinkedHashMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth api-keys}: long-lived keys that act as you in one workspace. */
@Command(name = "api-keys", addMethodSubcommands = false, description = "Manage your API keys in a workspace.")
final class ApiKeysCommand {
    @ParentCommand
    Cli cli;

    @Mixin
    WorkspaceOption workspace;

    @Command(name = "create", description = "Make an API key; its secret is printed once (send it as Authorization: Bearer, or as E2B_API_KEY).")
    int create(@Parameters(paramLabel = "NAME", description = "a name to know it by") String name,
               @Option(names = "--role", paramLabel = "ROLE", description = "viewer, editor or admin (default and at most: yours)") String role,
               @Option(names = "--expires-in-days", paramLabel = "DAYS", description = "expire after DAYS (default: never, until revoked)") Integer days) {
        var body = new LinkedHashMap<String, Object>();
        body.put("name", name);
        if (role != null) {
            body.put("role", role);
        }
        if (days != null) {
            body.put("expires_in_days", days);
        }
        var answer = cli.client().create("/workspaces/" + workspace.required() + "/api_keys", body);
        cli.print(answer, () -> {
            String secret = answer.path("secret").asText();
            cli.out().println(secret);
            cli.context.err().println("API key " + answer.path("api_key").path("id").asText() + " (" + name
                    + "): the secret above is shown this once; keep it. E2B's SDKs take it as E2B_API_KEY="
                    + "e2b_" + secret.substring(secret.indexOf('_') + 1));
        });
        return 0;
    }

    @Command(name = "list", description = "List the workspace's API keys (never their secrets).")
    int list() {
        var answer = Cli.everyPage(cli.client(), "/workspaces/" + workspace.required() + "/api_keys", "api_keys");
        cli.print(answer, () -> table(answer.path("api_keys")));
        return 0;
    }

    @Command(name = "revoke", description = "Revoke an API key (yours, or anyone's as an admin); it is refused at once.")
    int revoke(@Parameters(paramLabel = "KEY", description = "the key's id") String id) {
        var answer = cli.client().delete("/workspaces/" + workspace.required() + "/api_keys/" + id);
        cli.print(answer, () -> table(JsonTrees.array().add(answer.path("api_key"))));
        return 0;
    }

    private void table(Iterable<JsonNode> rows) {
        var table = new Table("ID", "NAME", "PREFIX", "ROLE", "STATE", "LAST USED", "EXPIRES");
        rows.forEach(k -> table.row(k.path("id").asText(), k.path("name").asText(), k.path("prefix").asText(),
                k.path("role").asText(), k.path("state").asText(), k.path("last_used_at").asText("-"),
                k.path("expires_at").asText("-")));
        table.print(cli.out());
    }
}
