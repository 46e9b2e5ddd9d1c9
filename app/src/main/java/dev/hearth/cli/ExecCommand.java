package dev.hearth.cli;

import dev.hearth.api.ApiException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth exec NAME -- cmd ...}: runs a command in a computer and exits with its exit code. */
@Command(name = "exec", description = "Run a command in a computer; exits with the command's exit code.")
final class ExecCommand implements Callable<Integer> {
    @ParentCommand
    Cli cli;

    @Mixin
    WorkspaceOption workspace;

    @Parameters(index = "0", paramLabel = "COMPUTER", description = "the computer's name or id")
    String computer;

    @Parameters(index = "1..*", paramLabel = "COMMAND", description = "the command and its arguments (after --)")
    List<String> command;

    @Option(names = "--env", paramLabel = "NAME=VALUE", description = "an environment variable of the command")
    List<String> env;

    @Option(names = "--cwd", paramLabel = "CWD", description = "working directory of the command (default: the image's)")
    String cwd;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "kill the command and everything it started after this many seconds")
    Integer timeout;

    @Option(names = "--stdin", description = "send standard input to the command")
    boolean stdin;

    @Option(names = {"-i", "--interactive"}, description = "keep standard input open (with -t)")
    boolean interactive;

    @Option(names = {"-d", "--detach"}, description = "start it in the background and print its pid "
            + "(see hearth ps, logs, kill)")
    boolean detach;

    @Option(names = "--tag", paramLabel = "TAG", description = "a label for a background process (with -d)")
    String tag;

    @Option(names = {"-t", "--tty"}, description = "run on a terminal: an interactive shell (hearth exec -it box -- sh)")
    boolean tty;

    @Override
    public Integer call() throws Exception {
        if (command == null || command.isEmpty()) {
            throw new IllegalArgumentException("give the command after --, e.g. hearth exec box -- ls /");
        }
        if (tty) {
            var client = cli.client();
            String token = cli.credentials().orElseThrow().token(client).orElseThrow();
            return new TerminalSession(cli.out(), cli.context.in()).run(client.http(), client.baseUrl(), token, computer,
                    workspace.required(), command);
        }
        var body = new LinkedHashMap<String, Object>(Map.of("command", command));
        var extra = ComputersCommand.env(env, null);
        if (!extra.isEmpty()) {
            body.put("env", extra);
        }
        if (cwd != null) {
            body.put("cwd", cwd);
        }
        if (timeout != null) {
            body.put("timeout_seconds", timeout);
        }
        if (detach) {
            return detached(body);
        }
        if (stdin) {
            body.put("stdin", new String(cli.context.in().readAllBytes(), StandardCharsets.UTF_8));
        }
        String path = "/computers/" + computer + "/exec?workspace=" + workspace.required();
        if (cli.json) {
            var result = cli.client().post(path, body);
            cli.print(result, () -> { });
            return result.path("exit_code").asInt();
        }
        // Output streams as it is produced (NDJSON), uncapped.
        var exit = new int[] {-1};
        cli.client().streamLines("POST", path, body, line -> {
            if (line.has("stdout")) {
                cli.out().print(line.path("stdout").asText());
                cli.out().flush();
            } else if (line.has("stderr")) {
                cli.context.err().print(line.path("stderr").asText());
                cli.context.err().flush();
            } else if (line.has("exit_code")) {
                exit[0] = line.path("exit_code").asInt();
                if (line.path("timed_out").asBoolean()) {
                    cli.context.err().println("hearth: the command timed out and was killed");
                }
            } else if (line.has("error")) {
                throw ApiException.fromResponse(503, line);
            }
        });
        return exit[0];
    }

    private int detached(Map<String, Object> body) {
        if (stdin || timeout != null) {
            throw new IllegalArgumentException("-d starts a background process: it takes neither --stdin nor --timeout");
        }
        if (tag != null) {
            body.put("tag", tag);
        }
        var answer = cli.client().post("/computers/" + computer + "/processes?workspace=" + workspace.required(), body);
        cli.print(answer, () -> cli.out().println(answer.path("process").path("pid").asInt()));
        return 0;
    }
}
