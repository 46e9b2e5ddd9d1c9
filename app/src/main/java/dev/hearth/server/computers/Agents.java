package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.server.agent.AgentClaim;
import dev.hearth.server.agent.AgentClient;
import dev.hearth.server.agent.AgentEndpoint;
import dev.hearth.server.agent.AgentStats;
import dev.hearth.server.agent.AgentException;
import dev.hearth.server.agent.AgentExec;
import dev.hearth.server.agent.AgentFiles;
import dev.hearth.server.agent.AgentProcesses;
import dev.hearth.server.agent.AgentSecrets;
import dev.hearth.server.agent.AgentTerminal;
import dev.hearth.server.sandbox.Exec;
import dev.hearth.server.sandbox.RunningExecs;
import dev.hearth.server.sandbox.Terminal;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How hearth serve reaches each computer's agent: its address, its sandbox and its secret, which
 * the agent gets at start (in its environment, which it passes on to nobody) and, in a fork, at the
 * first contact after the restore. Every command, terminal, file and process goes through it.
 */
final class Agents {
    private static final Logger LOG = LoggerFactory.getLogger(Agents.class);
    static final String SECRET_ENV = "HEARTH_AGENT_SECRET";
    // A fresh agent answers within milliseconds; this is for a machine under heavy load.
    private static final long READY_MILLIS = 10_000;

    private final AgentClient client;
    private final AgentSecrets secrets;
    private final AgentExec exec;
    private final AgentFiles files;
    private final AgentProcesses processes;
    private final MainExits exits;
    // Sandboxes whose main process is being waited for.
    private final Set<String> watched = ConcurrentHashMap.newKeySet();
    private final RunningExecs running = new RunningExecs();
    // Clients following a process's output: they never hold a sleep or a checkpoint off, and end first.
    private final RunningExecs followers = new RunningExecs();

    Agents(AgentClient client, AgentSecrets secrets, MainExits exits) {
        this.client = client;
        this.exits = exits;
        this.secrets = secrets;
        this.exec = new AgentExec(client);
        this.files = new AgentFiles(client);
        this.processes = new AgentProcesses(client);
    }

    AgentExec exec() {
        return exec;
    }

    /** The sandbox is gone: what was asked of its agent ends now (runtime_unavailable), not at its time limit. */
    /** Closes the agent's idle connections (see {@link AgentClient#closeIdle}). */
    void closeIdle(Computer c) {
        of(c).ifPresent(client::closeIdle);
    }

    void abandon(String sandboxId) {
        client.abandon(sandboxId);
    }

    AgentFiles files() {
        return files;
    }

    AgentProcesses processes() {
        return processes;
    }

    /** Registers a client following output in the sandbox and how to end it; the answer unregisters it. */
    Runnable follow(String sandboxId, Runnable end) {
        return followers.track(sandboxId, end);
    }

    /** Ends the clients following output in the sandbox (its memory is about to be saved or dropped). */
    void endFollowers(String sandboxId) {
        followers.end(sandboxId, Duration.ofSeconds(5));
    }

    /** Starts a command on a terminal through the agent, counted as a running command until closed. */
    Terminal terminal(Computer c, AgentEndpoint agent, Exec.Request request, int columns, int rows) {
        var terminal = AgentTerminal.open(client, agent, request, columns, rows);
        terminal.untrackOnClose(track(c.sandboxId(), terminal::kill));
        return terminal;
    }

    /** Registers a command running through the agent and how to end it; the answer unregisters it. */
    Runnable track(String sandboxId, Runnable end) {
        return running.track(sandboxId, end);
    }

    boolean busy(String sandboxId) {
        return running.busy(sandboxId);
    }

    /** Ends every command running through the agent in the sandbox (sleep does), waiting up to {@code limit}. */
    void endExecs(String sandboxId, Duration limit) {
        endFollowers(sandboxId);
        running.end(sandboxId, limit);
    }

    String secret(String computerId) {
        return secrets.of(computerId);
    }

    /** The computer's agent, if it has a sandbox. */
    Optional<AgentEndpoint> of(Computer c) {
        return c.slot() == null ? Optional.empty() : Optional.of(endpoint(c, c.id()));
    }

    /** What the computer's agent says of it, if it answers (metrics: never an error). */
    Optional<AgentStats> stats(Computer c) {
        try {
            return of(c).map(client::stats);
        } catch (AgentException e) {
            return Optional.empty();
        }
    }

    /** Whether the computer's agent answers a health request within two seconds (true without a sandbox). */
    boolean answers(Computer c) {
        return of(c).map(client::answers).orElse(true);
    }

    /** The agent of a computer that runs (callers have checked its state): one without a sandbox is a 409. */
    AgentEndpoint required(Computer c) {
        return of(c).orElseThrow(() -> ApiException.conflict("computer " + c.name() + " is " + c.state()
                + ", not running"));
    }

    /** The agent's boot id now, noted before its memory is saved: "" if it does not answer, empty without a sandbox. */
    Optional<String> boot(Computer c) {
        return of(c).map(agent -> {
            try {
                return client.boot(agent).orElse("");
            } catch (AgentException refused) {
                return "";
            }
        });
    }

    /** Waits for the agent of a sandbox just started. */
    void started(Computer c, BooleanSupplier running) {
        if (await(c, endpoint(c, c.id()), null, "", running)) {
            watchMain(c);
        }
    }

    /** Whether the computer's agent answers within {@code limit} (one without a sandbox needs not). */
    boolean answers(Computer c, Duration limit) {
        var agent = of(c);
        if (agent.isEmpty()) {
            return true;
        }
        long deadline = System.nanoTime() + limit.toNanos();
        do {
            try {
                if (client.boot(agent.get()).isPresent()) {
                    return true;
                }
            } catch (AgentException refused) {
                return true; // it answered, if only to refuse
            }
        } while (System.nanoTime() < deadline && pause());
        return false;
    }

    private static boolean pause() {
        try {
            Thread.sleep(200);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether the computer's sandbox is a pooled one whose claim never finished (hearth serve stopped). */
    boolean unclaimed(Computer c) {
        try {
            return of(c).map(client::unclaimed).orElse(false);
        } catch (AgentException e) {
            return false;
        }
    }

    /** Whether the agent of a sandbox started for the warm pool answers (it has no main process yet). */
    boolean pooled(Computer c, BooleanSupplier running) {
        return await(c, endpoint(c, c.id()), null, "", running);
    }

    /**
     * Makes a pooled sandbox's agent this computer's and starts its main process. One that cannot
     * start ends the sandbox, as it would have at a cold start; the supervisor then does the same.
     */
    void claim(Computer c, AgentClaim claim) {
        try {
            client.claim(endpoint(c, c.id()), claim);
        } catch (AgentException e) {
            if (e.unreachable() || !"cannot_start".equals(e.code())) {
                throw e;
            }
            LOG.info("computer {} ({}): its main process could not start: {}", c.name(), c.id(), e.getMessage());
        }
        watchMain(c);
    }

    /**
     * After a restore: has the agent renew itself ({@code renew}: a re-exec of the binary mounted
     * now, keeping its processes: a restored Go runtime's epoll came back deaf, google/gvisor#13920,
     * and a fresh program is the safe answer for any agent; an image of any age gets the current agent this way), waits
     * for the renewed one (another boot id than the saved one's), and gives it this computer's
     * secret if it held another's (a fork). Memory without a holder's note is taken for this computer's.
     */
    void restored(Computer c, Optional<AgentHolders.Holder> holder, BooleanSupplier running, Runnable renew) {
        renew.run();
        if (await(c, endpoint(c, c.id()), holder.map(saved -> former(c, saved)).orElse(null),
                holder.map(AgentHolders.Holder::boot).orElse(""), running)) {
            watchMain(c);
        }
    }

    /** Whether the agent answered; one that did not in time is logged, and its computer's calls answer 503. */
    private boolean await(Computer c, AgentEndpoint own, AgentEndpoint former, String oldBoot, BooleanSupplier running) {
        long started = System.nanoTime();
        try {
            for (int tries = 1; !ready(own, former, oldBoot); tries++) {
                if (tries % 100 == 0 && !running.getAsBoolean()) {
                    return false;
                }
                if (System.nanoTime() - started > READY_MILLIS * 1_000_000) {
                    LOG.warn("computer {} (sandbox {}): its agent did not answer within {} ms", c.id(), c.sandboxId(),
                            READY_MILLIS);
                    return false;
                }
                Thread.sleep(2);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Waits, on a thread of its own, for the main process of the computer's sandbox to end and notes
     * it; a wait cut short (the agent renewed, a checkpoint) is taken up again while the sandbox is
     * the computer's. A sandbox that stops ends it.
     */
    void watchMain(Computer c) {
        if (c.slot() == null || !watched.add(c.sandboxId())) {
            return;
        }
        var agent = endpoint(c, c.id());
        Thread.ofVirtual().name("main-" + c.sandboxId()).start(() -> {
            try {
                for (int tries = 0; tries < 100 && exits.current(c); tries++) {
                    try {
                        var main = processes.awaitExit(agent, "main");
                        exits.ended(c, main.exitCode(), main.endedAt());
                        return;
                    } catch (AgentException e) {
                        if (!e.unreachable()) {
                            return; // no main process, or an agent that does not know this wait
                        }
                        Thread.sleep(1000);
                    }
                }
            } catch (InterruptedException | RuntimeException e) {
                LOG.debug("stopped waiting for the main process of {}: {}", c.sandboxId(), e.toString());
            } finally {
                watched.remove(c.sandboxId());
            }
        });
    }

    /** Whether the agent answers to {@code own} (given it through {@code former} if need be) from another boot. */
    private boolean ready(AgentEndpoint own, AgentEndpoint former, String oldBoot) {
        try {
            return client.boot(own).filter(boot -> oldBoot.isEmpty() || !boot.equals(oldBoot)).isPresent();
        } catch (AgentException refused) {
            if (former == null || refused.unreachable()) {
                throw refusal(refused);
            }
            if (client.boot(former).filter(boot -> oldBoot.isEmpty() || !boot.equals(oldBoot)).isEmpty()) {
                return false;
            }
            client.rekey(former, own.secret());
            return client.boot(own).isPresent();
        }
    }

    /**
     * The agent as the saved memory knows it, when that is not as {@code c}: another computer's (a
     * fork), or the secret of the node the image came from (a move).
     */
    private AgentEndpoint former(Computer c, AgentHolders.Holder saved) {
        if (saved.carried()) {
            return new AgentEndpoint(c.slot().sandboxAddress(), c.sandboxId(), saved.carriedSecret());
        }
        return saved.computerId().equals(c.id()) ? null : endpoint(c, saved.computerId());
    }

    private AgentEndpoint endpoint(Computer c, String secretOf) {
        return new AgentEndpoint(c.slot().sandboxAddress(), c.sandboxId(), secrets.of(secretOf));
    }

    /**
     * An agent's refusal as the API's error: what it says about files and processes, or the runtime
     * being unavailable when it did not answer.
     */
    static ApiException refusal(AgentException e) {
        return switch (e.code()) {
            case "not_found" -> new ApiException(ErrorCode.NOT_FOUND, e.getMessage());
            case "exists", "no_stdin", "no_pty", "too_many_processes" -> ApiException.conflict(e.getMessage());
            case "no_space" -> new ApiException(ErrorCode.INSUFFICIENT_STORAGE, e.getMessage());
            case "is_dir", "not_dir", "invalid", "failed", "denied", "cannot_start" ->
                    new ApiException(ErrorCode.INVALID_REQUEST, e.getMessage());
            default -> new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "the computer's agent did not answer: "
                    + e.getMessage());
        };
    }
}
