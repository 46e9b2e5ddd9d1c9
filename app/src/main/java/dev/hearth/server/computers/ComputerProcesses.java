package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Validate;
import dev.hearth.api.computers.ExecRequest;
import dev.hearth.api.computers.ProcessInfo;
import dev.hearth.api.computers.StartProcess;
import dev.hearth.api.computers.Window;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.agent.AgentEndpoint;
import dev.hearth.server.agent.AgentException;
import dev.hearth.server.agent.AgentProcesses;
import dev.hearth.server.agent.Frames;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Processes in computers, kept by their agents: started in the background (checked as an exec is),
 * listed, signalled, fed, and their output read or followed. The main process is "main" to the
 * agent; its output is the computer's log. A sleeping computer is woken first.
 */
public final class ComputerProcesses {
    private static final Set<String> SIGNALS = Set.of("TERM", "KILL", "INT", "HUP", "QUIT", "USR1", "USR2", "STOP",
            "CONT");
    private static final String MAIN = "main";

    private final Awake awake;
    private final Agents agents;
    private final Execs execs;

    ComputerProcesses(Awake awake, Agents agents, Execs execs) {
        this.awake = awake;
        this.agents = agents;
        this.execs = execs;
    }

    public ProcessInfo start(Workspace workspace, String ref, StartProcess request) {
        if (request.tag() != null && request.tag().length() > 128) {
            throw ApiException.invalidField("tag", "at most 128 characters");
        }
        var window = request.pty() == null ? null : checked(request.pty());
        var prepared = execs.prepare(workspace, ref, new ExecRequest(request.command(), request.env(),
                request.cwd(), null, null, null, request.user()));
        var exec = prepared.request();
        var start = new AgentProcesses.Start(exec.command(), exec.env(), exec.cwd(), request.tag(),
                window != null || Boolean.TRUE.equals(request.stdin()), exec.user(), window);
        return on(prepared.read(), agent -> agents.processes().start(agent, start));
    }

    public ProcessInfo resize(Workspace workspace, String ref, String pid, Window window) {
        String selector = pid(pid);
        var checked = checked(Validate.required("pty", window));
        return on(awake.find(workspace, ref), agent -> agents.processes().resize(agent, selector, checked));
    }

    public List<ProcessInfo> list(Workspace workspace, String ref) {
        return on(awake.find(workspace, ref), agent -> agents.processes().list(agent));
    }

    public ProcessInfo get(Workspace workspace, String ref, String pid) {
        String selector = pid(pid);
        return on(awake.find(workspace, ref), agent -> agents.processes().get(agent, selector));
    }

    public ProcessInfo signal(Workspace workspace, String ref, String pid, String signal) {
        String selector = pid(pid);
        String name = signalName(signal);
        return on(awake.find(workspace, ref), agent -> agents.processes().signal(agent, selector, name));
    }

    public ProcessInfo stdin(Workspace workspace, String ref, String pid, InputStream bytes, boolean close) {
        String selector = pid(pid);
        return on(awake.find(workspace, ref), agent -> agents.processes().stdin(agent, selector, bytes, close));
    }

    /**
     * A process's output, opened (a missing process fails here, before any byte is sent); {@code fromNow}:
     * only what it writes from now on.
     */
    public Output output(Workspace workspace, String ref, String pid, boolean follow, boolean fromNow) {
        return open(workspace, ref, pid(pid), follow, fromNow);
    }

    /** The main process's output: the computer's log. */
    public Output log(Workspace workspace, String ref, boolean follow) {
        try {
            return open(workspace, ref, MAIN, follow, false);
        } catch (ApiException e) {
            if (e.is(ErrorCode.NOT_FOUND)) {
                throw new ApiException(ErrorCode.NOT_FOUND, "computer " + ref
                        + " has no main process (it waits for exec), so no log");
            }
            throw e;
        }
    }

    /** Output on its way from the agent: relayed once, then closed; sleep ends a follower. */
    public static final class Output {
        private final AgentProcesses.Output output;
        private final Runnable untrack;

        private Output(AgentProcesses.Output output, Runnable untrack) {
            this.output = output;
            this.untrack = untrack;
        }

        /** Hands the output to {@code sink}; answers the exit code if the process ended. */
        public Optional<Integer> relay(Frames.Output sink) throws IOException {
            try (output) {
                return output.relay(sink);
            } finally {
                untrack.run();
            }
        }
    }

    private Output open(Workspace workspace, String ref, String selector, boolean follow, boolean fromNow) {
        return awake.run(awake.find(workspace, ref), c -> {
            var agent = agents.required(c);
            Runnable[] abort = {() -> { }};
            // Tracked before the gate is let go, so a sleep that follows ends it rather than saving it.
            Runnable untrack = agents.follow(c.sandboxId(), () -> abort[0].run());
            try {
                var output = agents.processes().output(agent, selector, follow, fromNow);
                abort[0] = output.abort();
                return new Output(output, untrack);
            } catch (AgentException e) {
                untrack.run();
                throw Agents.refusal(e);
            }
        });
    }

    private <T> T on(Awake.Read read, Function<AgentEndpoint, T> work) {
        return awake.onAgent(read, work);
    }

    private static String pid(String pid) {
        if (pid == null || !pid.matches("[1-9][0-9]{0,9}")) {
            throw ApiException.invalidField("pid", "a process id: a positive integer");
        }
        return pid;
    }

    private static String signalName(String signal) {
        String name = signal == null ? "" : signal.toUpperCase(Locale.ROOT);
        name = name.startsWith("SIG") ? name.substring(3) : name;
        if (!SIGNALS.contains(name)) {
            throw ApiException.invalidField("signal", "one of TERM, KILL, INT, HUP, QUIT, USR1, USR2, STOP, CONT");
        }
        return name;
    }

    private static AgentProcesses.Window checked(Window window) {
        return new AgentProcesses.Window(Validate.range("pty.cols", window.cols(), 1, 10_000, 80),
                Validate.range("pty.rows", window.rows(), 1, 10_000, 24));
    }
}
