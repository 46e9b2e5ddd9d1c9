package dev.hearth.server.network;

import dev.hearth.server.network.Directory.Remote;
import dev.hearth.server.network.Firewall.RemoteMember;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the firewall's remote members and the overlay's routes to the computers other nodes run,
 * as the store has them: read every {@link #EVERY}, and at once when a name resolves to one this
 * node does not know yet ({@link #known}), so a computer's first connection to a new one elsewhere
 * does not wait for the next round. The overlay's device is made when the first computer of a node
 * on another address appears: a single node, or nodes sharing one host, never make one.
 */
final class Remotes implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Remotes.class);
    static final Duration EVERY = Duration.ofMillis(500);

    private final Supplier<List<Remote>> source;
    private final Firewall firewall;
    private final Optional<InetAddress> here;
    private final String device;
    private final Thread rounds;
    private Optional<Overlay> overlay = Optional.empty();
    private volatile Set<InetAddress> known = Set.of();

    /** {@code here}: this node's own address, the overlay's end (none, or a loopback one: no overlay). */
    Remotes(Supplier<List<Remote>> source, Firewall firewall, Optional<InetAddress> here, String device) {
        this.source = source;
        this.firewall = firewall;
        this.here = here.filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isAnyLocalAddress());
        this.device = device;
        this.rounds = Thread.ofVirtual().name("remote-computers").start(this::rounds);
    }

    /** Whether {@code address} is a remote computer this node routes to already; if not, reads the store again. */
    boolean known(InetAddress address) {
        if (known.contains(address)) {
            return true;
        }
        sync();
        return known.contains(address);
    }

    synchronized void sync() {
        var remote = source.get();
        firewall.remoteMembers(remote.stream().map(r -> new RemoteMember(r.workspace(), r.address()))
                .collect(Collectors.toSet()));
        var routed = new HashMap<InetAddress, InetAddress>();
        here.ifPresent(self -> remote.stream().filter(r -> !r.node().equals(self))
                .forEach(r -> routed.put(r.address(), r.node())));
        if (overlay.isEmpty() && !routed.isEmpty()) {
            overlay = Optional.of(Overlay.start(device, here.orElseThrow()));
        }
        overlay.ifPresent(o -> o.route(routed));
        known = remote.stream().map(Remote::address).collect(Collectors.toUnmodifiableSet());
    }

    // The first round waits too: the directory's computers are built after the network.
    private void rounds() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(EVERY);
            } catch (InterruptedException e) {
                return;
            }
            try {
                sync();
            } catch (RuntimeException e) {
                LOG.warn("could not bring the network to other nodes' computers up to date: {}", e.getMessage());
            }
        }
    }

    /** Stops the rounds; the device and its routes stay, so that computers keep their network until the next start. */
    @Override
    public void close() {
        rounds.interrupt();
    }
}
