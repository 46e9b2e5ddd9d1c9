package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.JsonTrees;
import dev.hearth.client.SessionTokens;
import dev.hearth.client.TokenSource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code hearth auth}: sign in, print tokens, sign out. */
@Command(name = "auth", addMethodSubcommands = false, description = "Sign in and get access tokens.")
final class AuthCommand {
    @ParentCommand
    Cli cli;

    @Command(name = "token", description = "Print an access token (from $HEARTH_KEY_FILE or the saved session).")
    int token() {
        var client = cli.client();
        cli.out().println(cli.credentials().orElseThrow().token(client).orElseThrow());
        return 0;
    }

    @Command(name = "login", description = "Sign in by email: the server mails a one-time code, which you type here.")
    int login(@Option(names = "--email", paramLabel = "EMAIL", required = true, description = "your email address; a sign-in code is mailed to it") String email,
              @Option(names = "--code", paramLabel = "CODE", description = "the code, if you have it already") String code) throws IOException {
        var client = cli.anonymous();
        client.post("/auth/email/start", Map.of("email", email));
        if (code == null) {
            cli.context.err().print("A sign-in code was sent to " + email + ". Enter it: ");
            cli.context.err().flush();
            code = new BufferedReader(new InputStreamReader(cli.context.in())).readLine();
            if (code == null) {
                throw new IllegalArgumentException("no code entered");
            }
        }
        JsonNode tokens = client.post("/auth/email/verify", Map.of("email", email, "code", code.strip()));
        SessionTokens.save(cli.sessionFile(), client.baseUrl(), tokens);
        cli.out().println("Signed in as " + tokens.path("principal").path("email").asText()
                + " (session saved in " + cli.sessionFile() + ")");
        return 0;
    }

    @Command(name = "logout", description = "End the saved session.")
    int logout() throws IOException {
        var file = cli.sessionFile();
        if (!Files.exists(file)) {
            cli.out().println("Not signed in.");
            return 0;
        }
        var session = JsonTrees.read(Files.readAllBytes(file));
        cli.anonymous().withTokens(TokenSource.none()).send("POST", "/auth/logout",
                Map.of("refresh_token", session.path("refresh_token").asText()), Map.of());
        Files.delete(file);
        cli.out().println("Signed out.");
        return 0;
    }
}
