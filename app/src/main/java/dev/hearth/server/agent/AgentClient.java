package dev.hearth.server.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.client.AbstractConnectionPool;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

/**
 * HTTP to agents, on Jetty's client: requests tagged with their sandbox get a connection pool of
 * their own (a sandbox started again on the same address never gets its predecessor's connections),
 * answers stream, and an error answer becomes an {@link AgentException}.
 */
public final class AgentClient implements AutoCloseable {
    // An answer's head comes at once from a live agent; a command's body may take its whole time limit.
    static final Duration HEAD = Duration.ofSeconds(30);
    private static final int MAX_ERROR_BYTES = 64 * 1024;

    private final Client http = new Client();

    /**
     * Jetty's client, with its own copy of a request: Jetty copies as for a redirect (method, headers,
     * body), leaving out the tag and, as for another host, the Authorization; both are put back.
     */
    private static final class Client extends HttpClient {
        Request again(Request request) {
            String authorization = request.getHeaders().get(HttpHeader.AUTHORIZATION);
            return copyRequest(request, request.getURI()).tag(request.getTag())
                    .headers(h -> h.put(HttpHeader.AUTHORIZATION, authorization));
        }
    }
    // Requests sent and not yet complete, by sandbox, so that a sandbox's death ends them.
    private final Map<String, Set<Request>> inFlight = new ConcurrentHashMap<>();

    public AgentClient() {
        http.setConnectTimeout(2_000);
        http.setIdleTimeout(60_000);
        http.setDestinationIdleTimeout(120_000);
        http.setMaxConnectionsPerDestination(256);
        http.setUserAgentField(null);
        http.setFollowRedirects(false);
        // Daemon threads: the client must never be what keeps a stopping server's JVM alive.
        var threads = new QueuedThreadPool();
        threads.setName("agent-client");
        threads.setDaemon(true);
        http.setExecutor(threads);
        http.setScheduler(new ScheduledExecutorScheduler("agent-client-scheduler", true));
        try {
            http.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the agent client", e);
        }
    }

    Request request(AgentEndpoint agent, String method, String path) {
        return tracked(agent, http.newRequest(agent.url(path)).method(method).tag(agent.sandboxId())
                .headers(h -> h.put(HttpHeader.AUTHORIZATION, "Bearer " + agent.secret())));
    }

    private Request tracked(AgentEndpoint agent, Request request) {
        String id = agent.sandboxId();
        inFlight.compute(id, (k, mine) -> {
            var set = mine != null ? mine : ConcurrentHashMap.<Request>newKeySet();
            set.add(request);
            return set;
        });
        request.onComplete(result -> inFlight.computeIfPresent(id, (k, mine) -> {
            mine.remove(request);
            return mine.isEmpty() ? null : mine;
        }));
        return request;
    }

    /**
     * Closes the kept-alive connections to a sandbox's agent that no request uses (those in use stay):
     * before it is frozen, so that no close at the end of their idle time, a minute later, sends a
     * packet that would thaw it.
     */
    public void closeIdle(AgentEndpoint agent) {
        for (var destination : http.getDestinations()) {
            var origin = destination.getOrigin();
            if (agent.sandboxId().equals(origin.getTag()) && agent.address().equals(origin.getAddress().getHost())
                    && destination.getConnectionPool() instanceof AbstractConnectionPool pool) {
                for (var idle = pool.acquire(false); idle != null; idle = pool.acquire(false)) {
                    idle.close();
                }
            }
        }
    }

    /**
     * Ends every request in flight to a sandbox that is gone (killed by the host, say): a dead
     * sandbox's netstack neither answers nor resets, so they would wait out their time limits.
     */
    public void abandon(String sandboxId) {
        var mine = inFlight.remove(sandboxId);
        if (mine != null) {
            var gone = new IOException("the sandbox " + sandboxId + " stopped");
            mine.forEach(r -> r.abort(gone));
        }
    }

    /** A streamed answer: its length if known (-1 if not) and its body, which the caller closes. */
    public record Answer(long length, InputStream body) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            body.close();
        }
    }

    /**
     * Sends and waits for the answer's head (an upload's comes once the body is sent: as long as the
     * request's own time limit); an error status becomes an AgentException.
     */
    Answer open(AgentEndpoint agent, Request request) {
        var sent = new AtomicBoolean();
        request.onRequestCommit(r -> sent.set(true));
        try {
            return answer(agent, request);
        } catch (AgentException e) {
            if (sent.get() || !e.unreachable() || !(e.getCause() instanceof IOException) || e.getCause() instanceof ConnectException
                    || !(request.getBody() == null || request.getBody() instanceof BytesRequestContent)) {
                throw e;
            }
            // Failed before a byte went out: a pooled connection the agent had closed (an agent that
            // renews itself ends its connections). Nothing reached it, so once more on a new connection.
            return answer(agent, tracked(agent, http.again(request)));
        }
    }

    private Answer answer(AgentEndpoint agent, Request request) {
        var listener = new InputStreamResponseListener();
        request.send(listener);
        try {
            var response = listener.get(Math.max(HEAD.toMillis(), request.getTimeout()), TimeUnit.MILLISECONDS);
            var body = listener.getInputStream();
            if (response.getStatus() >= 400) {
                throw refusal(response.getStatus(), body);
            }
            return new Answer(response.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH), body);
        } catch (ExecutionException | TimeoutException e) {
            request.abort(e);
            throw AgentException.unreachable(agent, e.getCause() != null ? e.getCause() : e);
        } catch (InterruptedException e) {
            request.abort(e);
            Thread.currentThread().interrupt();
            throw AgentException.unreachable(agent, e);
        }
    }

    /** A request with a small JSON answer (or none: 204 answers null). */
    JsonNode json(AgentEndpoint agent, Request request) {
        try (var answer = open(agent, request)) {
            byte[] bytes = answer.body().readAllBytes();
            return bytes.length == 0 ? null : Json.mapper().readTree(bytes);
        } catch (IOException e) {
            throw AgentException.unreachable(agent, e);
        }
    }

    static Request jsonBody(Request request, Object body) {
        try {
            return request.body(new BytesRequestContent("application/json", Json.mapper().writeValueAsBytes(body)));
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static AgentException refusal(int status, InputStream body) {
        try (body) {
            var node = Json.mapper().readTree(body.readNBytes(MAX_ERROR_BYTES));
            return new AgentException(status, node.path("code").asText("failed"), node.path("message").asText(""));
        } catch (IOException | RuntimeException e) {
            return new AgentException(status, "failed", "the agent answered " + status);
        }
    }

    /**
     * The boot id of the agent (one per start of its program) if it answers with this secret; empty
     * if nothing answers (yet); a refusal (another secret) throws.
     */
    public Optional<String> boot(AgentEndpoint agent) {
        try {
            var health = json(agent, request(agent, "GET", "/health").timeout(2, TimeUnit.SECONDS));
            return Optional.of(health == null ? "" : health.path("boot").asText(""));
        } catch (AgentException e) {
            if (e.unreachable()) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Whether the agent answers within two seconds (a probe of its health: never an error). */
    public boolean answers(AgentEndpoint agent) {
        try {
            return json(agent, request(agent, "GET", "/health").timeout(2, TimeUnit.SECONDS)) != null;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Whether the agent was started for the warm pool and waits for its claim still. */
    public boolean unclaimed(AgentEndpoint agent) {
        var health = json(agent, request(agent, "GET", "/health").timeout(2, TimeUnit.SECONDS));
        return health != null && health.path("unclaimed").asBoolean(false);
    }

    /** What the computer runs now, and what the agent ended for want of memory. */
    public AgentStats stats(AgentEndpoint agent) {
        var stats = json(agent, request(agent, "GET", "/stats").timeout(2, TimeUnit.SECONDS));
        if (stats == null) {
            return new AgentStats(0, 0, Optional.empty());
        }
        var last = stats.path("last_memory_kill");
        return new AgentStats(stats.path("processes").asInt(), stats.path("memory_kills").asInt(),
                last.isObject() ? Optional.of(new AgentStats.Kill(last.path("pid").asLong(), last.path("command").asText(),
                        last.path("bytes").asLong(), Instant.parse(last.path("at").asText()))) : Optional.empty());
    }

    /** Gives an agent (reached with the secret it has) the secret it answers to from now on. */
    public void rekey(AgentEndpoint agent, String secret) {
        json(agent, jsonBody(request(agent, "POST", "/rekey"), Map.of("secret", secret)));
    }

    /**
     * Hands a pooled agent its computer: the hostname, the main process's argv and environment, the
     * restart policy. Answers once the main process started (a refusal says why it could not).
     */
    public void claim(AgentEndpoint agent, AgentClaim claim) {
        json(agent, jsonBody(request(agent, "POST", "/claim"), claim));
    }

    @Override
    public void close() {
        try {
            http.stop();
        } catch (Exception e) {
            // stopping on the way out: nothing to do about it
        }
    }
}
