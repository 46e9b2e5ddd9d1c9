package dev.hearth.server.computers;

import dev.hearth.api.computers.ComputerState;
import dev.hearth.server.network.ComputerNetwork;
import dev.hearth.server.network.Firewall.ComputerRule;
import dev.hearth.server.network.NetworkSettings;
import dev.hearth.server.network.Services;
import dev.hearth.server.sandbox.SandboxSpec.FileMount;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A computer's place on the network, kept in step with its life: its rules while it exists (its
 * policy applied at once when changed), marked asleep while it sleeps (so a connection wakes it),
 * and the resolver and hosts files it sees. Without networking (no runtime), nothing happens.
 */
final class Networking {
    private static final Logger LOG = LoggerFactory.getLogger(Networking.class);
    private final Optional<ComputerNetwork> network;

    Networking(Optional<ComputerNetwork> network) {
        this.network = network;
    }

    NetworkSettings settings() {
        return network.map(ComputerNetwork::settings).orElse(NetworkSettings.DEFAULT);
    }

    /** Puts (or replaces) the computer's rules, and the guard in its namespace unless there. */
    void attach(Computer c) {
        network.ifPresent(n -> {
            n.guard(c.slot());
            n.firewall().put(rule(c));
        });
    }

    /** The guard in a pooled sandbox's namespace, put before its claim so that a claim does not wait for it. */
    void guard(Computer c) {
        network.ifPresent(n -> n.guard(c.slot()));
    }

    /** Removes the computer's rules; a failure is only logged (the next start's reset drops them anyway). */
    void detach(Computer c) {
        network.ifPresent(n -> quietly(c, "remove its rules", () -> n.firewall().remove(rule(c))));
    }

    /** Marks it asleep or awake for the waker; a failure is only logged (a connection then waits for a wake). */
    void asleep(Computer c, boolean asleep) {
        network.ifPresent(n -> quietly(c, "mark it " + (asleep ? "asleep" : "awake"),
                () -> n.firewall().asleep(rule(c), asleep)));
    }

    private static void quietly(Computer c, String what, Runnable change) {
        try {
            change.run();
        } catch (RuntimeException e) {
            LOG.warn("computer {} ({}): could not {} in the firewall: {}", c.name(), c.id(), what, e.getMessage());
        }
    }

    /** Every live computer's rules, and nothing else (on start: rules of computers gone go). */
    void reset(List<Computer> live) {
        network.ifPresent(n -> n.firewall().reset(live.stream().map(Networking::rule).toList(), List.of(),
                live.stream().filter(c -> c.is(ComputerState.SLEEPING)).map(Networking::rule).toList()));
    }

    /**
     * The resolver and hosts files the computer sees at /etc, whatever its image holds there: the
     * services address answers names, {@code NAME} alone means {@code NAME.internal}.
     */
    List<FileMount> files(Computer c, Path computerDir) throws IOException {
        if (network.isEmpty()) {
            return List.of();
        }
        Path etc = Files.createDirectories(computerDir.resolve("etc"));
        Files.writeString(etc.resolve("resolv.conf"), "nameserver " + Services.ADDRESS.host() + "\nsearch internal\n");
        Files.writeString(etc.resolve("hosts"), "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
                + c.slot().sandboxAddress() + "\t" + c.name() + "\n");
        return List.of(new FileMount(etc.resolve("resolv.conf"), "/etc/resolv.conf"),
                new FileMount(etc.resolve("hosts"), "/etc/hosts"));
    }

    static ComputerRule rule(Computer c) {
        return new ComputerRule(c.slot(), c.workspace(), c.settings().network());
    }
}
