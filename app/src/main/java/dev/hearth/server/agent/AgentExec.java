package dev.hearth.server.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import dev.hearth.server.sandbox.Exec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.Request;

/**
 * Commands run by the agent. The request is a JSON head (its length first) and then stdin; the
 * answer is frames of output and then the exit. Hanging up kills the command: the agent sees its
 * request end and kills the whole tree, as it does at the time limit.
 */
public final class AgentExec {
    // How often a running command asks whether its caller is still there.
    private static final long CALLER_POLL_MILLIS = 200;
    private static final int KILLED = 128 + 9;

    private final AgentClient client;

    public AgentExec(AgentClient client) {
        this.client = client;
    }

    /** Runs a command and keeps its output, each stream up to {@code cap} bytes. */
    public Exec.Result run(AgentEndpoint agent, Exec.Request request, int cap, BooleanSupplier callerPresent) {
        var out = new Kept(cap);
        var err = new Kept(cap);
        var end = exchange(agent, request, (stderr, bytes) -> (stderr ? err : out).keep(bytes), callerPresent);
        return new Exec.Result(end.code, out.bytes.toByteArray(), err.bytes.toByteArray(),
                out.truncated || err.truncated, end.timedOut, end.millis);
    }

    /** Runs a command and hands its output to the sink as it comes; a failing sink kills it. */
    public Exec.Result stream(AgentEndpoint agent, Exec.Request request, Exec.Sink sink, BooleanSupplier callerPresent) {
        var end = exchange(agent, request, sink, callerPresent);
        return new Exec.Result(end.code, new byte[0], new byte[0], false, end.timedOut, end.millis);
    }

    private record End(int code, boolean timedOut, long millis) {
    }

    private End exchange(AgentEndpoint agent, Exec.Request request, Exec.Sink sink, BooleanSupplier callerPresent) {
        long t0 = System.nanoTime();
        // A command may be silent for its whole time limit: the client's idle limit must not end it first.
        long limit = request.timeout().plus(AgentClient.HEAD).toMillis();
        var http = client.request(agent, "POST", "/exec")
                .timeout(limit, TimeUnit.MILLISECONDS).idleTimeout(limit, TimeUnit.MILLISECONDS)
                .body(new BytesRequestContent("application/octet-stream", head(request), request.stdin()));
        var gone = new AtomicBoolean();
        var watcher = Thread.ofVirtual().start(() -> watch(callerPresent, gone, http));
        try (var answer = client.open(agent, http)) {
            JsonNode exit = Frames.read(answer.body(), (stderr, bytes) -> deliver(sink, stderr, bytes, gone, http), true)
                    .orElseThrow();
            return new End(exit.path("exit_code").asInt(), exit.path("timed_out").asBoolean(),
                    (System.nanoTime() - t0) / 1_000_000);
        } catch (IOException | AgentException e) {
            if (gone.get()) {
                return new End(KILLED, false, (System.nanoTime() - t0) / 1_000_000);
            }
            throw e instanceof AgentException refused ? refused : AgentException.unreachable(agent, e);
        } finally {
            watcher.interrupt();
        }
    }

    private static void deliver(Exec.Sink sink, boolean stderr, byte[] bytes, AtomicBoolean gone,
                                Request http) {
        try {
            sink.output(stderr, bytes);
        } catch (IOException listenerGone) {
            gone.set(true);
            http.abort(listenerGone);
        }
    }

    private static void watch(BooleanSupplier callerPresent, AtomicBoolean gone, Request http) {
        try {
            while (callerPresent.getAsBoolean()) {
                Thread.sleep(CALLER_POLL_MILLIS);
            }
            gone.set(true);
            http.abort(new IOException("the caller went away"));
        } catch (InterruptedException ended) {
            // the command ended first
        }
    }

    private static byte[] head(Exec.Request request) {
        var head = RunHead.exec(request.command(), request.env(), request.cwd(), request.user(),
                request.timeout().toMillis());
        try {
            byte[] json = Json.mapper().writeValueAsBytes(head);
            return ByteBuffer.allocate(4 + json.length).putInt(json.length).put(json).array();
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** Output kept up to a cap; what goes over it only sets {@code truncated}. */
    private static final class Kept {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final int cap;
        boolean truncated;

        Kept(int cap) {
            this.cap = cap;
        }

        synchronized void keep(byte[] chunk) {
            int room = cap - bytes.size();
            bytes.write(chunk, 0, Math.max(0, Math.min(room, chunk.length)));
            truncated |= chunk.length > room;
        }
    }
}
