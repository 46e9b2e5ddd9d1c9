package dev.hearth.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Parameters;

/**
 * {@code hearth completion bash|zsh|fish}: a shell completion script for every command and option.
 * Bash and zsh get picocli's script (zsh runs it through bashcompinit); fish gets its own
 * {@code complete} lines, made from the same command tree.
 */
@Command(name = "completion", description = "Print a shell completion script: source <(hearth completion bash).")
final class CompletionCommand implements Callable<Integer> {
    @Parameters(paramLabel = "bash|zsh|fish", description = "the shell the script is for")
    String shell;

    private final Cli.Context context;

    CompletionCommand(Cli.Context context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        var tree = Cli.commandLine(context, List.of());
        String script = switch (shell) {
            case "bash" -> AutoComplete.bash("hearth", tree);
            case "zsh" -> "autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n"
                    + AutoComplete.bash("hearth", tree);
            case "fish" -> fish(tree.getCommandSpec());
            default -> throw new IllegalArgumentException("completion is for bash, zsh or fish, not " + shell);
        };
        context.out().print(script);
        return 0;
    }

    private static String fish(CommandSpec root) {
        var lines = new ArrayList<String>();
        lines.add("complete -c hearth -f");
        options(root, "", lines);
        for (var sub : distinct(root)) {
            lines.add("complete -c hearth -n '__fish_use_subcommand' -a " + sub.name() + " -d " + quote(describe(sub)));
            String in = "__fish_seen_subcommand_from " + sub.name();
            options(sub, in, lines);
            var children = distinct(sub);
            String none = children.isEmpty() ? "" : "; and not __fish_seen_subcommand_from "
                    + String.join(" ", children.stream().map(CommandSpec::name).toList());
            for (var child : children) {
                lines.add("complete -c hearth -n '" + in + none + "' -a " + child.name() + " -d " + quote(describe(child)));
                options(child, in + "; and __fish_seen_subcommand_from " + child.name(), lines);
            }
        }
        return String.join("\n", lines) + "\n";
    }

    private static List<CommandSpec> distinct(CommandSpec spec) {
        return spec.subcommands().values().stream().map(CommandLine::getCommandSpec).distinct()
                .filter(sub -> !sub.usageMessage().hidden()).toList();
    }

    private static void options(CommandSpec spec, String condition, List<String> lines) {
        for (OptionSpec option : spec.options()) {
            var line = new StringBuilder("complete -c hearth");
            if (!condition.isEmpty()) {
                line.append(" -n '").append(condition).append("'");
            }
            for (String name : option.names()) {
                line.append(name.startsWith("--") ? " -l " + name.substring(2) : " -s " + name.substring(1));
            }
            if (option.arity().max() > 0) {
                line.append(" -r");
            }
            line.append(" -d ").append(quote(option.description().length == 0 ? "" : option.description()[0]));
            lines.add(line.toString());
        }
    }

    private static String describe(CommandSpec spec) {
        var text = spec.usageMessage().description();
        return text.length == 0 ? "" : text[0];
    }

    private static String quote(String text) {
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
