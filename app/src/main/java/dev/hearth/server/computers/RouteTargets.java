package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.computers.Computer.Port;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The computer router's side of computers: which computer and port a host label names, and a
 * request's begin and end (a sleeping computer woken first, busy meanwhile, used at both ends).
 */
public final class RouteTargets {
    private static final Pattern NUMBERED = Pattern.compile("(.+)-(\\d{1,5})");

    private final ComputerRecords records;
    private final Activity activity;
    private final Sleeps sleeps;
    private final Agents agents;

    private final Gates gates;
    private final InFlight inFlight;

    RouteTargets(ComputerRecords records, Activity activity, Sleeps sleeps, Agents agents, Gates gates,
                 InFlight inFlight) {
        this.records = records;
        this.inFlight = inFlight;
        this.gates = gates;
        this.activity = activity;
        this.sleeps = sleeps;
        this.agents = agents;
    }

    /** Where a router request goes: the computer and the port it publishes. */
    public record RouteTarget(Computer computer, Port port) {
        public String computerId() {
            return computer.id();
        }
    }

    /**
     * The computer and port a host label names in a workspace: {@code web} is computer web on its
     * port published on 80 (else its first port); {@code web-8080} is the port published on 8080.
     */
    public Optional<RouteTarget> routeFor(Workspace workspace, String label) {
        var exact = live(workspace, label);
        if (exact.isPresent()) {
            var ports = exact.get().settings().ports();
            var port = ports.stream().filter(p -> p.published() == 80).findFirst().or(() -> ports.stream().findFirst());
            return port.map(p -> new RouteTarget(exact.get(), p));
        }
        var numbered = NUMBERED.matcher(label);
        if (!numbered.matches()) {
            return Optional.empty();
        }
        int published = Integer.parseInt(numbered.group(2));
        return live(workspace, numbered.group(1)).flatMap(c -> c.settings().ports().stream()
                .filter(p -> p.published() == published).findFirst().map(p -> new RouteTarget(c, p)));
    }

    /**
     * Any port of a live computer, by its id, as a public one: for front ends that name computers by
     * id and port (E2B's {@code {port}-{id}.{domain}}), which decide themselves who may reach it.
     */
    public Optional<RouteTarget> byId(String computerId, int port) {
        return records.jdbi().withHandle(h -> records.store().find(h, computerId)).filter(c -> !c.deleted())
                .map(c -> new RouteTarget(c, new Port(port, port, "http1", false)));
    }

    /**
     * Makes a server that listens on the port only on 127.0.0.1 inside the computer reachable at its
     * address too, as E2B's envd does (its agent forwards it; gVisor would hold a connection to the
     * computer's address unanswered). Asked of the agent once per sandbox and port while nothing
     * listens there yet, then never again for that sandbox: a server listening on every address
     * needs nothing, and the agent's forwarder lives as long as the sandbox.
     */
    public void forwardLocal(RouteTarget target) {
        if (forwarded.contains(target.computer().sandboxId() + ":" + target.port().target())) {
            return;
        }
        var c = records.here(target.computer()); // awake now: a wake may have given it another sandbox
        String key = c.sandboxId() + ":" + target.port().target();
        var agent = agents.of(c);
        try {
            if (agent.isPresent() && agents.files().forward(agent.get(), target.port().target(),
                    c.slot().sandboxAddress())) {
                if (forwarded.size() > 100_000) {
                    forwarded.clear();
                }
                forwarded.add(key);
            }
        } catch (RuntimeException e) {
            // the proxy's own attempt says what is wrong
        }
    }

    private final java.util.Set<String> forwarded = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * A router request begins: the computer is woken if asleep (thawed if frozen while idle), counts as busy until {@link #leaveRoute}
     * (no auto-sleep under a request in flight) and as used. Answers its address inside its network.
     */
    public String enterRoute(RouteTarget target) {
        String computerId = target.computerId();
        activity.requestBegins(computerId);
        try {
            // routeFor has just read it: read again only to wake it (under its gate).
            var c = records.here(target.computer());
            if (c.is(ComputerState.SLEEPING)) {
                c = sleeps.wakeNow(computerId);
            }
            if (!c.is(ComputerState.READY) || c.deleted()) {
                throw new ApiException(ErrorCode.BAD_GATEWAY, "computer " + c.name() + " is " + (c.deleted()
                        ? "deleted" : c.state()) + ", not ready");
            }
            gates.thaw(computerId);
            activity.used(computerId, records.now());
            return c.slot().sandboxAddress();
        } catch (RuntimeException e) {
            leaveRoute(computerId);
            throw e;
        }
    }

    /**
     * A request is sent into the computer: {@code end} ends it, with the reason, if its sandbox goes
     * meanwhile. Run what this answers once the request is over.
     */
    public Runnable whileSent(String computerId, Consumer<String> end) {
        return inFlight.begins(computerId, end);
    }

    public void leaveRoute(String computerId) {
        activity.requestEnds(computerId);
        activity.used(computerId, records.now());
    }

    private Optional<Computer> live(Workspace workspace, String name) {
        return records.jdbi().withHandle(h -> records.store().find(h, workspace.id(), name)).filter(c -> !c.deleted());
    }
}
