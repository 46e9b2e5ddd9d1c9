package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.JsonTrees;
import dev.hearth.fs.Disk;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth access}: who holds which role in a workspace, and private-key principals. */
@Command(name = "access", addMethodSubcommands = false, description = "Manage who can use a workspace.")
final class AccessCommand {
    @ParentCommand
    Cli cli;

    @picocli.CommandLine.Mixin
    WorkspaceOption workspace;

    private String base() {
        return "/workspaces/" + workspace.required() + "/access";
    }

    @Command(name = "list", description = "List principals and their roles.")
    int list() {
        var answer = Cli.everyPage(cli.client(), base(), "access");
        cli.print(answer, () -> table(answer.path("access")));
        return 0;
    }

    @Command(name = "get", description = "Show one principal's access.")
    int get(@Parameters(paramLabel = "PRINCIPAL", description = "the principal's id") String principal) {
        show(cli.client().get(base() + "/" + principal));
        return 0;
    }

    @Command(name = "grant", description = "Give a person (--email) or a new private-key principal (--key NAME) a role.")
    int grant(@Option(names = "--email", paramLabel = "EMAIL", description = "give a person, by email address, the role") String email,
              @Option(names = "--key", paramLabel = "NAME", description = "create a private-key principal with this name") String keyName,
              @Option(names = "--description", paramLabel = "DESCRIPTION", description = "what the key principal is for") String description,
              @Option(names = "--public-key", paramLabel = "FILE", description = "bring your own public key (PEM or JWK)") Path publicKey,
              @Option(names = "--role", paramLabel = "ROLE", required = true, description = "admin, editor or viewer") String role,
              @Option(names = "--key-file-out", paramLabel = "FILE", description = "write the key file here (mode 0600)") Path keyFileOut) throws IOException {
        var body = new LinkedHashMap<String, Object>();
        body.put("role", role);
        if (email != null) {
            body.put("email", email);
        }
        if (keyName != null) {
            body.put("name", keyName);
        }
        if (description != null) {
            body.put("description", description);
        }
        if (publicKey != null) {
            body.put("public_key", Files.readString(publicKey));
        }
        var answer = cli.client().create(base(), body);
        keyFile(answer, keyFileOut);
        return 0;
    }

    @Command(name = "update", description = "Change a role, or a key principal's name or description.")
    int update(@Parameters(paramLabel = "PRINCIPAL", description = "the principal's id") String principal, @Option(names = "--role", paramLabel = "ROLE", description = "admin, editor or viewer") String role,
               @Option(names = "--name", paramLabel = "NAME", description = "a key principal's new name") String name, @Option(names = "--description", paramLabel = "DESCRIPTION", description = "what the key principal is for") String description) {
        var body = new LinkedHashMap<String, Object>();
        if (role != null) {
            body.put("role", role);
        }
        if (name != null) {
            body.put("name", name);
        }
        if (description != null) {
            body.put("description", description);
        }
        show(cli.client().patch(base() + "/" + principal, body));
        return 0;
    }

    @Command(name = "revoke", description = "Remove a principal's access to the workspace.")
    int revoke(@Parameters(paramLabel = "PRINCIPAL", description = "the principal's id") String principal) {
        show(cli.client().delete(base() + "/" + principal));
        return 0;
    }

    @Command(name = "rotate-key", description = "Issue a new key for a key principal and revoke the old one.")
    int rotateKey(@Parameters(paramLabel = "PRINCIPAL", description = "the principal's id") String principal,
                  @Option(names = "--public-key", paramLabel = "FILE", description = "bring your own public key (PEM or JWK)") Path publicKey,
                  @Option(names = "--key-file-out", paramLabel = "FILE", description = "write the new key file here (mode 0600)") Path keyFileOut) throws IOException {
        Map<String, Object> body = publicKey == null ? Map.of() : Map.of("public_key", Files.readString(publicKey));
        keyFile(cli.client().post(base() + "/" + principal + "/rotate_key", body), keyFileOut);
        return 0;
    }

    @Command(name = "revoke-key", description = "Revoke a key principal's key; its tokens stop working at once.")
    int revokeKey(@Parameters(paramLabel = "PRINCIPAL", description = "the principal's id") String principal) {
        show(cli.client().post(base() + "/" + principal + "/revoke_key", Map.of()));
        return 0;
    }

    private void keyFile(JsonNode answer, Path out) throws IOException {
        if (cli.json) {
            cli.print(answer, () -> { });
            return;
        }
        show(answer);
        var keyFile = answer.path("key_file");
        if (keyFile.isMissingNode() || keyFile.isNull()) {
            return;
        }
        String text = JsonTrees.pretty(keyFile);
        if (out == null) {
            cli.context.err().println("Key file (shown once; save it, e.g. with --key-file-out):");
            cli.out().println(text);
        } else {
            Disk.writePrivate(out, text);
            cli.out().println("Key file written to " + out + " (use HEARTH_KEY_FILE=" + out + ")");
        }
    }

    private void show(JsonNode answer) {
        var all = JsonTrees.array().add(answer.path("access"));
        cli.print(answer, () -> table(all));
    }

    private void table(Iterable<JsonNode> rows) {
        var table = new Table("PRINCIPAL", "AUTH", "WHO", "ROLE", "KEY");
        rows.forEach(a -> {
            var p = a.path("principal");
            table.row(p.path("id").asText(), p.path("auth").asText(),
                    p.path("email").isNull() ? p.path("name").asText() : p.path("email").asText(),
                    a.path("role").asText(), a.path("key_state").asText("-"));
        });
        table.print(cli.out());
    }
}
