package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import dev.hearth.api.JsonTrees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code hearth variables}: named secrets that computers reference. */
@Command(name = "variables", addMethodSubcommands = false, aliases = "vars", description = "Manage a workspace's variables (secrets).")
final class VariablesCommand {
    @ParentCommand
    Cli cli;

    @Mixin
    WorkspaceOption workspace;

    @Spec
    CommandSpec spec;

    @Command(name = "set", description = "Create a variable, or change its value (from VALUE, --from-file or --stdin).")
    int set(@Parameters(index = "0", paramLabel = "NAME", description = "the variable's name") String name,
            @Parameters(index = "1", arity = "0..1", paramLabel = "VALUE", description = "the value (else --from-file or --stdin)") String given,
            @Option(names = "--from-file", paramLabel = "FILE", description = "read the value from this file") Path file,
            @Option(names = "--stdin", description = "read the value from standard input") boolean stdin)
            throws IOException {
        int sources = (given != null ? 1 : 0) + (file != null ? 1 : 0) + (stdin ? 1 : 0);
        if (sources != 1) {
            throw new ParameterException(spec.commandLine(), "give the value once: VALUE, --from-file FILE or --stdin");
        }
        String value = given != null ? given
                : file != null ? Files.readString(file)
                : new String(cli.context.in().readAllBytes(), StandardCharsets.UTF_8);
        var client = cli.client();
        String ws = workspace.required();
        try {
            show(client.create("/workspaces/" + ws + "/variables", Map.of("name", name, "value", value)));
        } catch (ApiException e) {
            if (e.status() != 409) {
                throw e;
            }
            show(client.patch("/variables/" + name + "?workspace=" + ws, Map.of("value", value)));
        }
        return 0;
    }

    @Command(name = "list", description = "List variables (names only).")
    int list(@Option(names = "--deleted", description = "include deleted variables") boolean deleted) {
        var answer = Cli.everyPage(cli.client(), "/workspaces/" + workspace.required() + "/variables"
                + (deleted ? "?deleted=true" : ""), "variables");
        cli.print(answer, () -> table(answer.path("variables")));
        return 0;
    }

    @Command(name = "get", description = "Print a variable's value (editors and admins).")
    int get(@Parameters(paramLabel = "NAME", description = "the variable's name") String name) {
        var answer = cli.client().get("/variables/" + name + "?workspace=" + workspace.required());
        cli.print(answer, () -> {
            var value = answer.path("variable").path("value");
            if (value.isMissingNode()) {
                throw new IllegalArgumentException("your role may not read values; ask an editor");
            }
            cli.out().println(value.asText());
        });
        return 0;
    }

    @Command(name = "delete", description = "Delete a variable; computers referencing it cannot exec until it is set again.")
    int delete(@Parameters(paramLabel = "NAME", description = "the variable's name") String name) {
        show(cli.client().delete("/variables/" + name + "?workspace=" + workspace.required()));
        return 0;
    }

    private void show(JsonNode answer) {
        var all = JsonTrees.array().add(answer.path("variable"));
        cli.print(answer, () -> table(all));
    }

    private void table(Iterable<JsonNode> rows) {
        var table = new Table("NAME", "ID", "UPDATED", "DELETED");
        rows.forEach(v -> table.row(v.path("name").asText(), v.path("id").asText(), v.path("updated_at").asText(),
                v.path("deleted_at").asText("-")));
        table.print(cli.out());
    }
}
