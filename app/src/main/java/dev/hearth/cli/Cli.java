package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.ApiException;
import dev.hearth.api.JsonTrees;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.client.SessionTokens;
import dev.hearth.client.TokenCache;
import dev.hearth.client.TokenSource;
import dev.hearth.client.Trust;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The root of the command line: global options, and how every client command reaches the server. */
// scope INHERIT: every subcommand takes --help (and --version) too, at any depth.
@Command(name = "hearth", mixinStandardHelpOptions = true, scope = ScopeType.INHERIT, version = "hearth 0.1.0",
        description = "Sandboxed computers and PostgreSQL databases on your own machines.")
public final class Cli {
    // Every subcommand, in help order. Only the one a command line names is built (picocli reflects
    // over each class it is given, and the CLI answers faster without the rest); help builds them all.
    private static final Map<String, Class<?>> COMMANDS = commands(ServeCommand.class, AuthCommand.class,
            MeCommand.class, NodesCommand.class, WorkspacesCommand.class, AccessCommand.class, ApiKeysCommand.class, VariablesCommand.class,
            InvitationsCommand.class, OperationsCommand.class, ComputersCommand.class, CheckpointsCommand.class,
            ExecCommand.class, CpCommand.class, ProcessesCommands.Ps.class, ProcessesCommands.Logs.class,
            ProcessesCommands.Kill.class, ImagesCommand.class, DatabasesCommand.class, PsqlCommand.class,
            AdminCommand.class, CompletionCommand.class, AotTraining.class);

    // The options that take a value before a subcommand's name (the global --url URL, a group's
    // --workspace W), read from their fields, so that a value is never taken for the subcommand's name.
    private static final Set<String> VALUED_OPTIONS = Stream.of(Cli.class, WorkspaceOption.class)
            .flatMap(type -> Arrays.stream(type.getDeclaredFields()))
            .filter(f -> f.isAnnotationPresent(Option.class) && f.getType() != boolean.class)
            .flatMap(f -> Arrays.stream(f.getAnnotation(Option.class).names())).collect(Collectors.toUnmodifiableSet());

    public static final String DEFAULT_URL = "http://127.0.0.1:7300/v1";

    static {
        // picocli's default factory otherwise looks for Groovy on the class path, and a class that is
        // not there costs a scan of the whole jar (~10 ms of every command).
        System.setProperty("picocli.disable.closures", "true");
    }

    /** What a command may touch of the outside world; tests pass their own. */
    public record Context(Map<String, String> env, InputStream in, PrintStream out, PrintStream err, Path configDir) {
        public static Context system() {
            var env = System.getenv();
            String dir = env.getOrDefault("HEARTH_CONFIG_DIR", env.containsKey("XDG_CONFIG_HOME")
                    ? env.get("XDG_CONFIG_HOME") + "/hearth" : System.getProperty("user.home") + "/.config/hearth");
            return new Context(env, System.in, System.out, System.err, Path.of(dir));
        }
    }

    @Option(names = "--url", paramLabel = "URL", scope = ScopeType.INHERIT, description = "API base URL (default: $HEARTH_URL, config file, " + DEFAULT_URL + ")")
    String url;

    @Option(names = "--ca-file", scope = ScopeType.INHERIT, paramLabel = "FILE", description = "PEM CA that the server's certificate must chain to (default: $HEARTH_CA_FILE, else the system's CAs)")
    Path caFile;

    @Option(names = "--json", scope = ScopeType.INHERIT, description = "print the API's JSON instead of a table")
    boolean json;

    final Context context;

    Cli(Context context) {
        this.context = context;
    }

    public static int run(String[] args, Context context) {
        var cli = commandLine(context, commandWords(args));
        cli.setOut(new PrintWriter(context.out(), true));
        cli.setErr(new PrintWriter(context.err(), true));
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> report(e, context.err()));
        return cli.execute(args);
    }

    /**
     * The command tree with only the branch that {@code words} (a command line's first words) name: the
     * subcommand named by the first and, of a group, the method named by the second; all where a word
     * names none (help, completion, a group's options before its subcommand).
     */
    static CommandLine commandLine(Context context, List<String> words) {
        var factory = new Factory(context);
        var cli = new CommandLine(new Cli(context), factory);
        String first = words.isEmpty() ? null : words.getFirst();
        String second = words.size() < 2 ? null : words.get(1);
        var wanted = COMMANDS.containsKey(first) ? Set.of(COMMANDS.get(first)) : new LinkedHashSet<>(COMMANDS.values());
        wanted.forEach(type -> cli.addSubcommand(group(type, second, factory)));
        return cli;
    }

    /** A subcommand with those of its {@code @Command} methods that {@code word} names, or all of them. */
    private static CommandLine group(Class<?> type, String word, CommandLine.IFactory factory) {
        var group = new CommandLine(type, factory);
        var methods = CommandLine.getCommandMethods(type, null);
        var named = methods.stream().filter(m -> names(m.getAnnotation(Command.class)).contains(word)).toList();
        (named.isEmpty() ? methods : named).forEach(m -> group.addSubcommand(new CommandLine(m, factory)));
        return group;
    }

    private static List<String> names(Command command) {
        var names = new ArrayList<>(List.of(command.aliases()));
        names.add(command.name());
        return names;
    }

    /** The first two words of a command line that are neither options nor a global option's value. */
    private static List<String> commandWords(String[] args) {
        var words = new ArrayList<String>();
        for (int i = 0; i < args.length && words.size() < 2; i++) {
            if (args[i].equals("--")) {
                break;
            } else if (VALUED_OPTIONS.contains(args[i])) {
                i++;
            } else if (!args[i].startsWith("-")) {
                words.add(args[i]);
            }
        }
        return words;
    }

    private static Map<String, Class<?>> commands(Class<?>... types) {
        var all = new LinkedHashMap<String, Class<?>>();
        for (var type : types) {
            names(type.getAnnotation(Command.class)).forEach(name -> all.put(name, type));
        }
        return Collections.unmodifiableMap(all);
    }

    private static int report(Exception e, PrintStream err) {
        switch (e) {
            case ApiException api -> err.println("error: " + api.getMessage() + " (" + api.code()
                    + (api.requestId() == null ? "" : ", request " + api.requestId()) + ")");
            case UncheckedIOException io -> err.println("error: " + io.getMessage());
            case IllegalArgumentException bad -> err.println("error: " + bad.getMessage());
            default -> {
                err.println("error: " + e);
                return 2;
            }
        }
        return 1;
    }

    /** The server address: --url, else $HEARTH_URL, else the config file, else the default. */
    String baseUrl() {
        if (url != null) {
            return url;
        }
        if (context.env().containsKey("HEARTH_URL")) {
            return context.env().get("HEARTH_URL");
        }
        Path config = context.configDir().resolve("config.json");
        if (Files.exists(config)) {
            try {
                return JsonTrees.read(Files.readAllBytes(config)).path("url").asText(DEFAULT_URL);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + config, e);
            }
        }
        return DEFAULT_URL;
    }

    Path sessionFile() {
        return context.configDir().resolve("session.json");
    }

    /** Credentials: $HEARTH_TOKEN, else the key file named by $HEARTH_KEY_FILE, else the saved session. */
    Optional<TokenSource> credentials() {
        var env = context.env();
        if (env.containsKey("HEARTH_TOKEN")) {
            return Optional.of(TokenSource.of(env.get("HEARTH_TOKEN")));
        }
        if (env.containsKey("HEARTH_KEY_FILE")) {
            return Optional.of(KeyFileTokens.read(Path.of(env.get("HEARTH_KEY_FILE")))
                    .cachedIn(new TokenCache(context.configDir().resolve("tokens.json"))));
        }
        if (SessionTokens.exists(sessionFile())) {
            return Optional.of(new SessionTokens(sessionFile()));
        }
        return Optional.empty();
    }

    HearthClient client() {
        var tokens = credentials().orElseThrow(() -> new IllegalArgumentException(
                "not signed in: set HEARTH_KEY_FILE to a key file, or run hearth auth login --email you@example.com"));
        return new HearthClient(baseUrl(), tokens, trust());
    }

    HearthClient anonymous() {
        return new HearthClient(baseUrl(), TokenSource.none(), trust());
    }

    /** The CA to verify the server with: --ca-file, else $HEARTH_CA_FILE, else the JDK's own. */
    private Optional<SSLContext> trust() {
        Path file = caFile != null ? caFile
                : context.env().containsKey("HEARTH_CA_FILE") ? Path.of(context.env().get("HEARTH_CA_FILE")) : null;
        return Optional.ofNullable(file).map(Trust::of);
    }

    /** Reads every page of a list route and answers {@code {noun: [all items]}}, as one list. */
    static ObjectNode everyPage(HearthClient client, String path, String noun) {
        var all = JsonTrees.array();
        String cursor = null;
        JsonNode page;
        do {
            String sep = path.contains("?") ? "&" : "?";
            page = client.get(path + sep + "limit=100" + (cursor == null ? "" : "&cursor=" + cursor));
            page.path(noun).forEach(all::add);
            cursor = page.path("next_cursor").asText(null);
        } while (page.path("has_more").asBoolean());
        var answer = JsonTrees.object();
        answer.set(noun, all);
        return answer;
    }

    /** Prints the JSON answer with --json, else runs the table printer. */
    void print(JsonNode answer, Runnable table) {
        if (json) {
            context.out().println(JsonTrees.pretty(answer));
        } else {
            table.run();
        }
    }

    PrintStream out() {
        return context.out();
    }

    /**
     * Builds commands, handing those that want it the {@link Context}. Constructors are looked up,
     * not tried: picocli's own factory learns that a class is package-private from an exception,
     * which costs a fresh JVM more than the lookup.
     */
    private record Factory(Context context) implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> type) throws Exception {
            if (type.isInterface()) {
                return CommandLine.defaultFactory().create(type);
            }
            Constructor<?> plain = null;
            for (var constructor : type.getDeclaredConstructors()) {
                var parameters = constructor.getParameterTypes();
                if (parameters.length == 1 && parameters[0] == Context.class) {
                    constructor.setAccessible(true);
                    return type.cast(constructor.newInstance(context));
                }
                if (parameters.length == 0) {
                    plain = constructor;
                }
            }
            if (plain == null) {
                return CommandLine.defaultFactory().create(type);
            }
            plain.setAccessible(true);
            return type.cast(plain.newInstance());
        }
    }
}
