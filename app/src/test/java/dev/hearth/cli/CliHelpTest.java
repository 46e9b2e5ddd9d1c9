package dev.hearth.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

/** The CLI's help and shell completion, without a server: what a person reads and what their shell offers. */
class CliHelpTest {
    @TempDir
    Path config;

    private Cli.Context context(ByteArrayOutputStream out) {
        return new Cli.Context(Map.of(), new ByteArrayInputStream(new byte[0]), new PrintStream(out, true),
                new PrintStream(new ByteArrayOutputStream(), true), config);
    }

    @Test
    void everyOptionAndParameterIsDescribedWithARealLabel() {
        var problems = new ArrayList<String>();
        check(Cli.commandLine(context(new ByteArrayOutputStream()), List.of()).getCommandSpec(), problems);
        assertEquals(List.of(), problems);
    }

    private static void check(CommandSpec spec, List<String> problems) {
        var args = new ArrayList<ArgSpec>(spec.options());
        args.addAll(spec.positionalParameters());
        for (var arg : args) {
            if (arg.isOption() && (((CommandLine.Model.OptionSpec) arg).usageHelp()
                    || ((CommandLine.Model.OptionSpec) arg).versionHelp())) {
                continue;
            }
            String name = spec.qualifiedName() + " " + (arg.isOption() ? ((CommandLine.Model.OptionSpec) arg).longestName()
                    : arg.paramLabel());
            if (arg.description().length == 0 || arg.description()[0].isBlank()) {
                problems.add(name + ": no description");
            }
            if (arg.arity().max() > 0 && arg.paramLabel().startsWith("<")) {
                problems.add(name + ": placeholder label " + arg.paramLabel());
            }
        }
        spec.subcommands().values().stream().map(CommandLine::getCommandSpec).distinct()
                .forEach(sub -> check(sub, problems));
    }

    @Test
    void everyCommandAnswersHelpWithItsOptions() {
        for (var line : List.of(List.of("auth", "--help"), List.of("computers", "create", "--help"),
                List.of("databases", "--help"), List.of("exec", "-h"))) {
            var out = new ByteArrayOutputStream();
            assertEquals(0, Cli.run(line.toArray(String[]::new), context(out)), line.toString());
            String help = out.toString(StandardCharsets.UTF_8);
            assertTrue(help.startsWith("Usage: hearth " + line.get(0)), line + ": " + help);
        }
        var out = new ByteArrayOutputStream();
        Cli.run(new String[] {"computers", "create", "--help"}, context(out));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--cpus=CPUS"), out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aGroupListsAllItsCommandsWhateverComesBeforeTheOne() {
        // Only the branch a command line names is built; a group's help and its options before the
        // subcommand's name still find every subcommand.
        var group = new ByteArrayOutputStream();
        assertEquals(0, Cli.run(new String[] {"computers", "--help"}, context(group)));
        for (var command : List.of("create", "list", "get", "update", "sleep", "wake", "restore", "metrics", "delete")) {
            assertTrue(group.toString(StandardCharsets.UTF_8).contains("\n  " + command + " "), command + " in " + group);
        }
        var optionFirst = new ByteArrayOutputStream();
        assertEquals(0, Cli.run(new String[] {"computers", "-w", "demo", "list", "--help"}, context(optionFirst)));
        assertTrue(optionFirst.toString(StandardCharsets.UTF_8).startsWith("Usage: hearth computers list"), optionFirst.toString());
        var namedLikeACommand = new ByteArrayOutputStream();
        assertEquals(0, Cli.run(new String[] {"computers", "-w", "list", "get", "--help"}, context(namedLikeACommand)));
        assertTrue(namedLikeACommand.toString(StandardCharsets.UTF_8).startsWith("Usage: hearth computers get"),
                "a workspace named list: " + namedLikeACommand);
        var alias = new ByteArrayOutputStream();
        assertEquals(0, Cli.run(new String[] {"db", "checkpoints", "list", "--help"}, context(alias)));
        assertTrue(alias.toString(StandardCharsets.UTF_8).startsWith("Usage: hearth databases checkpoints list"), alias.toString());
        var tree = Cli.commandLine(context(new ByteArrayOutputStream()), List.of("computers", "list"));
        assertEquals(List.of("computers", "cmp"), List.copyOf(tree.getSubcommands().keySet()));
        assertEquals(List.of("list"), List.copyOf(tree.getSubcommands().get("computers").getSubcommands().keySet()));
    }

    @Test
    void bashCompletesCommandsAndOptions() throws Exception {
        var out = new ByteArrayOutputStream();
        assertEquals(0, Cli.run(new String[] {"completion", "bash"}, context(out)));
        Path script = config.resolve("hearth.bash");
        Files.writeString(script, out.toString(StandardCharsets.UTF_8));
        assertEquals(List.of("completion", "computers"), List.of(complete(script, "hearth comp").split(" ")).stream().sorted().toList());
        assertEquals("computers", complete(script, "hearth compu"));
        assertTrue(complete(script, "hearth computers cr").contains("create"));
        assertTrue(complete(script, "hearth computers create --cp").contains("--cpus"));
    }

    /** What bash offers for {@code line} (the cursor at its end), through the script's completion function. */
    private static String complete(Path script, String line) throws Exception {
        String words = line.endsWith(" ") ? line + "''" : line;
        var bash = new ProcessBuilder("bash", "-c", "source " + script + "; COMP_WORDS=(" + words + "); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); "
                + "COMP_LINE='" + line + "'; COMP_POINT=${#COMP_LINE}; _complete_hearth 2>/dev/null; echo \"${COMPREPLY[*]}\"")
                .redirectErrorStream(true).start();
        String answer = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        bash.waitFor();
        return answer;
    }

    @Test
    void theStartUpCacheTrainingRunsEverydayCommandsAgainstAStandIn() {
        var out = new ByteArrayOutputStream();
        assertEquals(0, Cli.run(new String[] {"aot-training"}, context(out)));
        assertEquals("", out.toString(StandardCharsets.UTF_8), "its commands print nowhere");
        var help = new ByteArrayOutputStream();
        Cli.run(new String[] {"--help"}, context(help));
        assertTrue(!help.toString(StandardCharsets.UTF_8).contains("aot-training"), "hidden from help");
    }

    @Test
    void zshAndFishGetScriptsToo() {
        var zsh = new ByteArrayOutputStream();
        assertEquals(0, Cli.run(new String[] {"completion", "zsh"}, context(zsh)));
        assertTrue(zsh.toString(StandardCharsets.UTF_8).contains("bashcompinit"));
        var fish = new ByteArrayOutputStream();
        assertEquals(0, Cli.run(new String[] {"completion", "fish"}, context(fish)));
        var lines = fish.toString(StandardCharsets.UTF_8).lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("complete -c hearth -n '__fish_use_subcommand' -a computers")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.contains("__fish_seen_subcommand_from create") && l.contains("-l cpus")),
                "options of nested commands");
    }
}
