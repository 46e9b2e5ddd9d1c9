package dev.hearth.server.computers;

import dev.hearth.api.computers.ComputerView;
import dev.hearth.api.computers.EnvValue;
import dev.hearth.api.computers.EnvVar;
import dev.hearth.api.computers.MainExitView;
import dev.hearth.api.computers.PortView;
import dev.hearth.api.tenancy.Workspace;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Computers as the API shows them: secrets named but never shown, each port's URL on the router
 * ({@code http[s]://{computer}--{workspace}.{domain}:{port}}, the published port added to the first
 * label when it is not 80).
 */
final class ComputerViews {
    private final Environments environments;
    // Known once the router listens.
    private final Supplier<RouterAddress> routerHost;
    private final AgentHealth health;

    private final Dozes dozes;

    ComputerViews(Environments environments, Supplier<RouterAddress> routerHost, AgentHealth health, Dozes dozes) {
        this.dozes = dozes;
        this.environments = environments;
        this.routerHost = routerHost;
        this.health = health;
    }

    ComputerView of(Computer c, Workspace workspace) {
        var missing = environments.missing(c);
        var envVars = new ArrayList<EnvVar>();
        c.settings().env().forEach((name, v) -> envVars.add(switch (v) {
            case EnvValue.Literal l -> new EnvVar(name, "literal", false);
            case EnvValue.Secret s -> new EnvVar(name, "secret", missing.contains(s.variable()));
        }));
        String host = HostLabels.of(c.name(), workspace.name());
        RouterAddress router = routerHost.get();
        var ports = c.settings().ports().stream().map(p -> new PortView(p.published(), p.target(),
                p.protocol(), p.privateAccess(), router.url(HostLabels.of(c.name(), p.published(), workspace.name()))))
                .toList();
        var set = c.settings();
        var times = c.times();
        return new ComputerView(c.id(), c.workspace(), c.name(), c.state(), c.pending(),
                c.sleep() == null ? null : c.sleep().mode(), set.image(), c.imageDigest(),
                ports, router.url(host), List.copyOf(set.env().keySet()), envVars,
                set.resources(), c.generation(), set.protectedFlag(),
                set.autoSleepSeconds(), set.freezeWhenIdle(), set.network().view(), set.launch().entrypoint(), set.launch().command(),
                set.launch().restart(), c.mainExit().map(e -> new MainExitView(e.exitCode(), e.endedAt()))
                        .orElse(null), set.labels(), set.lifetime().expiresAt(),
                set.lifetime().onExpire(),
                c.lineage().parent(), c.fromCheckpoint(), c.node(), c.error(),
                health.unresponsiveSince(c.id()).orElse(null), dozes.since(c.id()).orElse(null), times.createdAt(),
                times.updatedAt(), times.lastStartedAt(), times.lastActiveAt(), times.deletedAt());
    }
}
