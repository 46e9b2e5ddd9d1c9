package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** Processes in computers: {@code hearth ps}, {@code hearth logs}, {@code hearth kill}. */
final class ProcessesCommands {
    private ProcessesCommands() {
    }

    static String route(String computer, String rest, WorkspaceOption workspace) {
        return "/computers/" + computer + rest + "?workspace=" + workspace.required();
    }

    /** {@code hearth ps COMPUTER}. */
    @Command(name = "ps", description = {"List a computer's processes: its main process and those started with "
            + "exec -d, running or recently exited."})
    static final class Ps implements Callable<Integer> {
        @ParentCommand
        Cli cli;

        @Mixin
        WorkspaceOption workspace;

        @Parameters(index = "0", paramLabel = "COMPUTER", description = "the computer's name or id")
        String computer;

        @Override
        public Integer call() {
            var answer = cli.client().get(route(computer, "/processes", workspace));
            cli.print(answer, () -> {
                var table = new Table("PID", "TAG", "STATE", "EXIT", "STARTED", "COMMAND");
                for (var p : answer.path("processes")) {
                    table.row(p.path("pid").asInt(), text(p.path("tag")), p.path("state").asText(),
                            p.path("exit_code").isNull() ? null : p.path("exit_code").asInt(),
                            seconds(p.path("started_at").asText()), command(p.path("command")));
                }
                table.print(cli.out());
            });
            return 0;
        }

        /** An RFC 3339 time to the second: enough to tell processes apart in a table. */
        private static String seconds(String time) {
            return time.length() > 19 ? time.substring(0, 19) + "Z" : time;
        }

        private static String text(JsonNode node) {
            return node.asText().isEmpty() ? null : node.asText();
        }

        private static String command(JsonNode argv) {
            var words = new StringBuilder();
            argv.forEach(a -> words.append(words.isEmpty() ? "" : " ").append(a.asText()));
            return words.length() > 60 ? words.substring(0, 57) + "..." : words.toString();
        }
    }

    /** {@code hearth logs COMPUTER [PID] [-f]}. */
    @Command(name = "logs", description = {"Show a computer's log (its main process's output), or a process's "
            + "output with PID; -f follows it until the process ends.", "  hearth logs box -f    hearth logs box 42"})
    static final class Logs implements Callable<Integer> {
        @ParentCommand
        Cli cli;

        @Mixin
        WorkspaceOption workspace;

        @Parameters(index = "0", paramLabel = "COMPUTER", description = "the computer's name or id")
        String computer;

        @Parameters(index = "1", arity = "0..1", paramLabel = "PID", description = "a process (default: the main process)")
        Integer pid;

        @Option(names = {"-f", "--follow"}, description = "keep printing new output until the process ends")
        boolean follow;

        @Override
        public Integer call() {
            String rest = pid == null ? "/logs" : "/processes/" + pid + "/output";
            String path = route(computer, rest, workspace) + (follow ? "&follow=true" : "");
            cli.client().streamLines("GET", path, null, line -> {
                if (line.has("stdout")) {
                    cli.out().print(line.path("stdout").asText());
                    cli.out().flush();
                } else if (line.has("stderr")) {
                    cli.context.err().print(line.path("stderr").asText());
                    cli.context.err().flush();
                } else if (line.has("exit_code")) {
                    cli.context.err().println("hearth: " + (pid == null ? "the main process" : "process " + pid)
                            + " exited with " + line.path("exit_code").asInt());
                } else if (line.has("error")) {
                    throw ApiException.fromResponse(503, line);
                }
            });
            return 0;
        }
    }

    /** {@code hearth kill COMPUTER PID [-s SIGNAL]}. */
    @Command(name = "kill", description = "Send a signal to a process in a computer (TERM unless -s says).")
    static final class Kill implements Callable<Integer> {
        @ParentCommand
        Cli cli;

        @Mixin
        WorkspaceOption workspace;

        @Parameters(index = "0", paramLabel = "COMPUTER", description = "the computer's name or id")
        String computer;

        @Parameters(index = "1", paramLabel = "PID", description = "the process's id in the computer")
        int pid;

        @Option(names = {"-s", "--signal"}, paramLabel = "SIGNAL",
                description = "TERM, KILL, INT, HUP, QUIT, USR1, USR2, STOP or CONT")
        String signal = "TERM";

        @Override
        public Integer call() {
            var answer = cli.client().post(route(computer, "/processes/" + pid + "/signal", workspace),
                    Map.of("signal", signal));
            cli.print(answer, () -> cli.out().println("sent SIG" + signal.toUpperCase(java.util.Locale.ROOT)
                    .replaceFirst("^SIG", "") + " to process " + pid));
            return 0;
        }
    }
}
