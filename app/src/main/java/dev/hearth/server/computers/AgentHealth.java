package dev.hearth.server.computers;

import dev.hearth.server.sandbox.SandboxRuntime;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether awake computers' agents answer: each is asked every few seconds (a health request, two
 * seconds to answer). One that does not shows it ({@code unresponsive_since} on the computer) until
 * it answers again; after ten seconds deaf, host processes of its sandbox that something stopped
 * (SIGSTOP) are continued, which brings it back. A swamped computer (a fork bomb) shows as
 * unresponsive while it is; nothing is restarted, since that would lose its memory.
 */
final class AgentHealth {
    private static final Logger LOG = LoggerFactory.getLogger(AgentHealth.class);
    static final Duration EVERY = Duration.ofSeconds(5);
    private static final Duration BEFORE_CONTINUING = Duration.ofSeconds(10);

    private final Agents agents;
    private final Dozes dozes;
    private final Map<String, Instant> deaf = new ConcurrentHashMap<>();

    AgentHealth(Agents agents, Dozes dozes) {
        this.agents = agents;
        this.dozes = dozes;
    }

    /** Since when the computer's agent has not answered, if it does not answer now (as last asked). */
    Optional<Instant> unresponsiveSince(String computerId) {
        return Optional.ofNullable(deaf.get(computerId));
    }

    /** How many computers' agents do not answer now (as last asked). */
    int unresponsive() {
        return deaf.size();
    }

    /**
     * Asks every awake computer's agent at once, but for those frozen while idle (a frozen agent
     * cannot answer; it answered just before); forgets computers no longer awake.
     */
    void probe(Collection<Computer> awake, SandboxRuntime runtime, Instant now) {
        Set<String> ids = awake.stream().map(Computer::id).collect(Collectors.toSet());
        deaf.keySet().retainAll(ids);
        try (var each = Executors.newVirtualThreadPerTaskExecutor()) {
            awake.stream().filter(c -> !dozes.dozing(c.id())).forEach(c -> each.submit(() -> probe(c, runtime, now)));
        }
    }

    private void probe(Computer c, SandboxRuntime runtime, Instant now) {
        if (agents.answers(c)) {
            var since = deaf.remove(c.id());
            if (since != null) {
                LOG.info("computer {} ({}): its agent answers again (deaf since {})", c.name(), c.id(), since);
            }
            return;
        }
        var since = deaf.putIfAbsent(c.id(), now);
        if (since == null) {
            LOG.warn("computer {} ({}): its agent does not answer", c.name(), c.id());
        } else if (!since.plus(BEFORE_CONTINUING).isAfter(now)) {
            int continued = runtime.continueStopped(c.sandboxId());
            if (continued > 0) {
                LOG.warn("computer {} ({}): {} processes of its sandbox had been stopped (SIGSTOP): continued them",
                        c.name(), c.id(), continued);
            }
        }
    }
}
