package dev.hearth.server.agent;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.hearth.api.Json;
import dev.hearth.api.computers.ProcessInfo;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.InputStreamRequestContent;
import org.eclipse.jetty.client.Request;

/**
 * Processes the agent keeps: started in the background, listed, signalled, fed, and their output
 * (kept by the agent, the oldest dropped past 1 MiB each) read or followed. {@code selector} is a
 * pid, or "main" for the computer's main process.
 */
public final class AgentProcesses {
    // A follower may wait as long as the process stays quiet; it ends with the process or its caller.
    private static final long FOLLOW_MILLIS = TimeUnit.DAYS.toMillis(30);
    private static final TypeReference<List<ProcessInfo>> LIST = new TypeReference<>() {
    };

    private final AgentClient client;

    public AgentProcesses(AgentClient client) {
        this.client = client;
    }

    /**
     * What to start: argv, the whole environment, the working directory, a tag, whether it takes stdin,
     * the user it runs as (null: root), and a terminal's first size (null: pipes, no terminal).
     */
    public record Start(List<String> command, Map<String, String> env, String cwd, String tag, boolean stdin,
                        String user, Window pty) {
    }

    /** A terminal's size in characters. */
    public record Window(int cols, int rows) {
    }

    public ProcessInfo start(AgentEndpoint agent, Start start) {
        var pty = start.pty();
        var env = new LinkedHashMap<>(start.env());
        if (pty != null) {
            env.putIfAbsent("TERM", "xterm-256color"); // as the interactive terminal's
        }
        var head = new RunHead(start.command(), RunHead.env(env), start.cwd(), start.user(),
                start.tag() == null ? "" : start.tag(), null, pty == null ? null : pty.cols(),
                pty == null ? null : pty.rows(), start.stdin(), pty != null);
        return process(agent, AgentClient.jsonBody(client.request(agent, "POST", "/processes"), head));
    }

    /** The window of a process started on a terminal. */
    public ProcessInfo resize(AgentEndpoint agent, String selector, Window window) {
        return process(agent, AgentClient.jsonBody(client.request(agent, "POST", "/processes/" + selector + "/resize"),
                window));
    }

    public List<ProcessInfo> list(AgentEndpoint agent) {
        var node = client.json(agent, client.request(agent, "GET", "/processes"));
        return Json.mapper().convertValue(node.path("processes"), LIST);
    }

    public ProcessInfo get(AgentEndpoint agent, String selector) {
        return process(agent, client.request(agent, "GET", "/processes/" + selector));
    }

    /** Waits until the process has ended (as long as it takes), then answers it. */
    public ProcessInfo awaitExit(AgentEndpoint agent, String selector) {
        return process(agent, client.request(agent, "GET", "/processes/" + selector).param("wait", "exit")
                .timeout(FOLLOW_MILLIS, TimeUnit.MILLISECONDS).idleTimeout(FOLLOW_MILLIS, TimeUnit.MILLISECONDS));
    }

    public ProcessInfo signal(AgentEndpoint agent, String selector, String signal) {
        return process(agent, AgentClient.jsonBody(client.request(agent, "POST", "/processes/" + selector + "/signal"),
                Map.of("signal", signal)));
    }

    /** Writes {@code bytes} to the process's stdin, then closes it if {@code close}. */
    public ProcessInfo stdin(AgentEndpoint agent, String selector, InputStream bytes, boolean close) {
        return process(agent, client.request(agent, "POST", "/processes/" + selector + "/stdin")
                .param("close", Boolean.toString(close)).timeout(1, TimeUnit.HOURS)
                .body(new InputStreamRequestContent("application/octet-stream", bytes)));
    }

    /** A process's output on its way: relayed once, closed after; {@code abort} ends it from elsewhere. */
    public record Output(AgentClient.Answer answer, Runnable abort) implements AutoCloseable {
        /** Hands the output to {@code sink}; answers the exit code if the process ended. */
        public Optional<Integer> relay(Frames.Output sink) throws IOException {
            return Frames.read(answer.body(), sink, false).map(exit -> exit.path("exit_code").asInt());
        }

        @Override
        public void close() throws IOException {
            answer.close();
        }
    }

    /** Opens the output kept so far (and, if {@code follow}, what comes until the end); the caller closes it. */
    public Output output(AgentEndpoint agent, String selector, boolean follow) {
        return output(agent, selector, follow, false);
    }

    /** The same; {@code fromNow}: none of what it wrote so far, only what comes. */
    public Output output(AgentEndpoint agent, String selector, boolean follow, boolean fromNow) {
        var request = client.request(agent, "GET", "/processes/" + selector + "/output")
                .param("follow", Boolean.toString(follow));
        if (fromNow) {
            request.param("from", "now");
        }
        if (follow) {
            request.timeout(FOLLOW_MILLIS, TimeUnit.MILLISECONDS).idleTimeout(FOLLOW_MILLIS, TimeUnit.MILLISECONDS);
        }
        var answer = client.open(agent, request);
        return new Output(answer, () -> request.abort(new IOException("the computer stops")));
    }

    private ProcessInfo process(AgentEndpoint agent, Request request) {
        return Json.mapper().convertValue(client.json(agent, request), ProcessInfo.class);
    }
}
