package dev.hearth.server.agent;

import dev.hearth.api.Json;
import dev.hearth.server.sandbox.Exec;
import dev.hearth.server.sandbox.Terminal;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.client.OutputStreamRequestContent;
import org.eclipse.jetty.client.Request;

/**
 * A command on a terminal the agent opened: one full-duplex request whose body carries keystrokes
 * and window sizes as frames, and whose answer is the terminal's output, then the exit. Ending the
 * request kills the command's tree.
 */
public final class AgentTerminal implements Terminal {
    private static final long MAX_MILLIS = TimeUnit.HOURS.toMillis(12);

    private final Request request;
    private final OutputStreamRequestContent input;
    private final DataOutputStream frames;
    private final AgentClient.Answer answer;
    private final DataInputStream output;
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private byte[] pending = new byte[0];
    private int pendingAt;
    private volatile boolean closed;
    private volatile Runnable untrack = () -> { };

    private AgentTerminal(Request request, OutputStreamRequestContent input, AgentClient.Answer answer) {
        this.request = request;
        this.input = input;
        this.frames = new DataOutputStream(input.getOutputStream());
        this.answer = answer;
        this.output = new DataInputStream(answer.body());
    }

    /** Starts {@code command} on a terminal of {@code columns} x {@code rows}; TERM defaults to xterm-256color. */
    public static AgentTerminal open(AgentClient client, AgentEndpoint agent, Exec.Request command, int columns,
                                     int rows) {
        var env = new LinkedHashMap<>(command.env());
        env.putIfAbsent("TERM", "xterm-256color");
        var head = RunHead.terminal(command.command(), env, command.cwd(), command.user(), columns, rows);
        var input = new OutputStreamRequestContent("application/octet-stream");
        var request = client.request(agent, "POST", "/terminal").body(input)
                .timeout(MAX_MILLIS, TimeUnit.MILLISECONDS).idleTimeout(MAX_MILLIS, TimeUnit.MILLISECONDS);
        // The agent answers once it has read the head, and the head is sent once the request is: send first.
        var answer = new CompletableFuture<AgentClient.Answer>();
        Thread.ofVirtual().start(() -> {
            try {
                answer.complete(client.open(agent, request));
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
            }
        });
        try {
            byte[] json = Json.mapper().writeValueAsBytes(head);
            var out = new DataOutputStream(input.getOutputStream());
            out.writeInt(json.length);
            out.write(json);
            out.flush();
            return new AgentTerminal(request, input, answer.get(AgentClient.HEAD.toMillis(), TimeUnit.MILLISECONDS));
        } catch (IOException e) {
            request.abort(e);
            throw AgentException.unreachable(agent, e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof AgentException refused ? refused : AgentException.unreachable(agent, e);
        } catch (TimeoutException e) {
            request.abort(e);
            throw AgentException.unreachable(agent, e);
        } catch (InterruptedException e) {
            request.abort(e);
            Thread.currentThread().interrupt();
            throw AgentException.unreachable(agent, e);
        }
    }

    /** What {@link #close} runs to stop counting this terminal as a running command. */
    public void untrackOnClose(Runnable untrack) {
        this.untrack = untrack;
    }

    @Override
    public int read(byte[] buffer) {
        try {
            while (pendingAt >= pending.length) {
                int kind = closed ? -1 : output.read();
                if (kind < 0) {
                    exit.complete(137);
                    return -1;
                }
                byte[] payload = Frames.payload(output);
                if (kind == 'x') {
                    exit.complete(Json.mapper().readTree(payload).path("exit_code").asInt());
                    return -1;
                }
                pending = payload;
                pendingAt = 0;
            }
            int n = Math.min(buffer.length, pending.length - pendingAt);
            System.arraycopy(pending, pendingAt, buffer, 0, n);
            pendingAt += n;
            return n;
        } catch (IOException e) {
            exit.complete(137);
            return -1;
        }
    }

    @Override
    public synchronized void write(byte[] bytes) throws IOException {
        frame('i', bytes);
    }

    @Override
    public synchronized void resize(int columns, int rows) throws IOException {
        frame('r', Json.mapper().writeValueAsBytes(Map.of("cols", columns, "rows", rows)));
    }

    private void frame(int kind, byte[] payload) throws IOException {
        frames.writeByte(kind);
        frames.writeInt(payload.length);
        frames.write(payload);
        frames.flush();
    }

    /** The exit code once the output ended (137 if the command was killed or the agent went away). */
    @Override
    public int waitFor() throws InterruptedException {
        try {
            return exit.get();
        } catch (ExecutionException e) {
            return 137;
        }
    }

    @Override
    public void kill() {
        request.abort(new IOException("the terminal was closed"));
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            input.close();
            try {
                answer.close();
            } catch (IOException ignored) {
                // the answer is being dropped anyway
            }
            exit.complete(137);
            untrack.run();
        }
    }
}
