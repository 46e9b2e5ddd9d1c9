package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.server.computers.Computer.Port;
import dev.hearth.server.tenancy.Workspace;
import java.util.Optional;
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

    RouteTargets(ComputerRecords records, Activity activity, Sleeps sleeps) {
        this.records = records;
        this.activity = activity;
        this.sleeps = sleeps;
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
     * A router request begins: the computer is woken if asleep, counts as busy until {@link #leaveRoute}
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
            activity.used(computerId, records.now());
            return c.slot().sandboxAddress();
        } catch (RuntimeException e) {
            leaveRoute(computerId);
            throw e;
        }
    }

    public void leaveRoute(String computerId) {
        activity.requestEnds(computerId);
        activity.used(computerId, records.now());
    }

    private Optional<Computer> live(Workspace workspace, String name) {
        return records.jdbi().withHandle(h -> records.store().find(h, workspace.id(), name)).filter(c -> !c.deleted());
    }
}
