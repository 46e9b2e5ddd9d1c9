package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.Validate;
import dev.hearth.api.computers.ExecRequest;
import dev.hearth.api.computers.ExecResult;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.agent.AgentEndpoint;
import dev.hearth.server.agent.AgentException;
import dev.hearth.server.metrics.Timings;
import dev.hearth.server.sandbox.Exec;
import dev.hearth.server.sandbox.Terminal;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Commands run in computers: checked and resolved before any output (input, state, missing
 * variables, the environment), then run on the running sandbox with its gate held shared, a
 * sleeping computer woken first.
 */
final class Execs {
    public static final int OUTPUT_CAP = 1 << 20;

    private final SandboxAccess access;
    private final Awake awake;
    private final Environments environments;
    private final ComputerImages images;
    private final Agents agents;
    private final Timings timings;

    Execs(SandboxAccess access, Awake awake, Environments environments,
          ComputerImages images, Agents agents, Timings timings) {
        this.agents = agents;
        this.timings = timings;
        this.access = access;
        this.awake = awake;
        this.environments = environments;
        this.images = images;
    }

    /** An exec checked and ready to run: run it for a JSON answer, or stream its output. */
    public final class PreparedExec {
        private final Awake.Read read;
        private final Exec.Request request;
        private final OutputEncoding encoding;

        private PreparedExec(Awake.Read read, Exec.Request request, OutputEncoding encoding) {
            this.read = read;
            this.request = request;
            this.encoding = encoding;
        }

        public ExecResult run(BooleanSupplier callerPresent) {
            var result = throughAgent(callerPresent,
                    (agent, present) -> agents.exec().run(agent, request, OUTPUT_CAP, present));
            timings.record(Timings.Event.COMPUTER_EXEC, result.durationMillis() * 1_000_000);
            return new ExecResult(result.exitCode(), encoding.text(result.stdout()), encoding.text(result.stderr()),
                    result.timedOut(), result.truncated(), result.durationMillis());
        }

        public Exec.Result stream(Exec.Sink sink, BooleanSupplier callerPresent) {
            var result = throughAgent(callerPresent,
                    (agent, present) -> agents.exec().stream(agent, request, sink, present));
            timings.record(Timings.Event.COMPUTER_EXEC, result.durationMillis() * 1_000_000);
            return result;
        }

        /** Runs the command through the computer's agent (Awake.onAgent), tracked so that sleep can end it. */
        private Exec.Result throughAgent(BooleanSupplier callerPresent, AgentRun run) {
            return awake.onAgent(read, agent -> {
                var ended = new AtomicBoolean();
                Runnable untrack = agents.track(agent.sandboxId(), () -> ended.set(true));
                try {
                    return run.run(agent, () -> !ended.get() && callerPresent.getAsBoolean());
                } finally {
                    untrack.run();
                }
            });
        }

        /** The command checked, with its whole environment and working directory. */
        Exec.Request request() {
            return request;
        }

        Awake.Read read() {
            return read;
        }

        /** How the output is told: UTF-8 text, or base64 (binary output). */
        public OutputEncoding encoding() {
            return encoding;
        }

        /** A command on a terminal, through the computer's agent. */
        public Terminal terminal(int columns, int rows) {
            var terminal = awake.run(read, c -> {
                try {
                    return agents.terminal(c, agents.required(c), request, columns, rows);
                } catch (AgentException e) {
                    throw Agents.refusal(e);
                }
            });
            awake.used(read.computer().id());
            return terminal;
        }
    }

    /** Checks an exec (input, state, missing variables) and resolves its environment, before any output. */
    PreparedExec prepare(Workspace workspace, String ref, ExecRequest request) {
        access.get();
        var read = awake.find(workspace, ref);
        var computer = read.computer();
        var command = Validate.required("command", request.command());
        if (command.isEmpty() || command.size() > 4096 || command.stream().anyMatch(a -> a == null)) {
            throw ApiException.invalidField("command", "an array of 1 to 4096 strings: argv[0] and its arguments");
        }
        var extra = ComputerInput.callEnv(request.env());
        String cwd = request.cwd();
        if (cwd != null && !cwd.startsWith("/")) {
            throw ApiException.invalidField("cwd", "must be an absolute path");
        }
        int timeout = Validate.range("timeout_seconds", request.timeoutSeconds(), 1, 3600, 60);
        if (!computer.allows(Move.EXEC)) {
            throw ApiException.conflict("computer " + computer.name() + " is " + computer.state() + ", not ready");
        }
        environments.requireVariables(computer);
        var image = SandboxAccess.answering(() -> images.unpacked(computer));
        String user = user(request.user());
        // As a user, the agent starts in that user's home unless told otherwise (as su - does).
        String dir = cwd != null ? cwd : user != null ? null : Boots.workingDir(image);
        var encoding = OutputEncoding.of(request.encoding());
        byte[] stdin = encoding.bytes("stdin", request.stdin());
        return new PreparedExec(read, new Exec.Request(command,
                environments.of(computer, image, extra), dir, stdin, Duration.ofSeconds(timeout), user), encoding);
    }

    private static final java.util.regex.Pattern USER = java.util.regex.Pattern.compile(
            "[A-Za-z_][A-Za-z0-9._-]{0,31}\\$?|[0-9]{1,10}(:[0-9]{1,10})?");

    /** A user of the image to run as: a name, a uid or uid:gid (null: root, the agent's own). */
    static String user(String given) {
        if (given != null && !USER.matcher(given).matches()) {
            throw ApiException.invalidField("user", "a user of the computer's image: a name (e.g. user), a uid "
                    + "or uid:gid");
        }
        return given;
    }

    @FunctionalInterface
    private interface AgentRun {
        Exec.Result run(AgentEndpoint agent, BooleanSupplier callerPresent);
    }

}
