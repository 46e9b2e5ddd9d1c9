package dev.hearth.cli;

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

    @Parameters(index = "0", paramLabel = "COMPUTER")
    String computer;

    @Parameters(index = "1..*", paramLabel = "COMMAND", description = "the command and its arguments (after --)")
    List<String> command;

    @Option(names = "--env", paramLabel = "NAME=VALUE")
    List<String> env;

    @Option(names = "--cwd")
    String cwd;

    @Option(names = "--timeout", paramLabel = "SECONDS")
    Integer timeout;

    @Option(names = "--stdin", description = "send standard input to the command")
    boolean stdin;

    @Override
    public Integer call() throws Exception {
        if (command == null || command.isEmpty()) {
            throw new IllegalArgumentException("give the command after --, e.g. hearth exec box -- ls /");
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
        if (stdin) {
            body.put("stdin", new String(cli.context.in().readAllBytes(), StandardCharsets.UTF_8));
        }
        var result = cli.client().post("/computers/" + computer + "/exec?workspace=" + workspace.required(), body);
        if (cli.json) {
            cli.print(result, () -> { });
            return result.path("exit_code").asInt();
        }
        cli.out().print(result.path("stdout").asText());
        cli.out().flush();
        cli.context.err().print(result.path("stderr").asText());
        if (result.path("timed_out").asBoolean()) {
            cli.context.err().println("hearth: the command timed out and was killed");
        }
        if (result.path("truncated").asBoolean()) {
            cli.context.err().println("hearth: output passed 1 MiB and was cut");
        }
        cli.context.err().flush();
        return result.path("exit_code").asInt();
    }
}
