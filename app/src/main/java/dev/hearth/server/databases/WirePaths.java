package dev.hearth.server.databases;

import dev.hearth.server.network.DirectPorts;
import dev.hearth.server.process.Commands;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a database's new connections go. Asleep or waking, to its wake proxy; once its cluster is
 * up, straight to the cluster by the kernel (its public port through {@link DirectPorts}, its
 * address on computers' network through {@link ComputerReach}), so that Hearth copies none of their
 * bytes. The proxy takes both back before the cluster stops; connections already open go on.
 */
final class WirePaths {
    private static final Logger LOG = LoggerFactory.getLogger(WirePaths.class);

    private final Optional<DirectPorts> ports;
    private final ComputerReach reach;
    private final Optional<String> address;
    private final IntSupplier poolerPort;

    WirePaths(Optional<DirectPorts> ports, ComputerReach reach, String listenHost, IntSupplier poolerPort) {
        this.ports = ports;
        this.reach = reach;
        this.address = forwardedAddress(listenHost);
        this.poolerPort = poolerPort;
        if (ports.isPresent() && address.isEmpty()) {
            LOG.warn("database ports listen on {}: connections to them are relayed by Hearth's proxy", listenHost);
        }
    }

    /**
     * The address a public port is forwarded on: the listen address, or loopback for a wildcard
     * one (connections from other hosts to a wildcard port stay on the proxy, which sees them all).
     */
    static Optional<String> forwardedAddress(String listenHost) {
        try {
            var address = InetAddress.getByName(listenHost);
            if (address.isAnyLocalAddress()) {
                return Optional.of("127.0.0.1");
            }
            return address instanceof Inet4Address ? Optional.of(address.getHostAddress()) : Optional.empty();
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    /** The cluster listens on {@code clusterPort}: new connections go straight to it. Answers whether they do. */
    boolean direct(Database db, int clusterPort) {
        try {
            int publicPort = db.placement().port();
            ports.ifPresent(p -> address.ifPresent(a -> p.open(new DirectPorts.Forward(a, publicPort, clusterPort))));
            reach.direct(db, poolerPort.getAsInt(), clusterPort);
            return true;
        } catch (Commands.Failure e) {
            // The proxy still serves every connection: slower, never refused.
            LOG.warn("database {}: connections stay on the proxy ({})", db.id(), e.getMessage());
            proxied(db, clusterPort);
            return false;
        }
    }

    /** New connections go to the wake proxy again (before the cluster stops, or after it crashed). */
    void proxied(Database db, int clusterPort) {
        int publicPort = db.placement().port();
        try {
            ports.ifPresent(p -> address.ifPresent(a -> p.close(a, publicPort)));
        } catch (Commands.Failure e) {
            LOG.error("database {}: its public port could not be taken back from its cluster: {}", db.id(),
                    e.getMessage());
        }
        try {
            reach.proxied(db, poolerPort.getAsInt(), clusterPort);
        } catch (Commands.Failure e) {
            LOG.debug("database {}: computers' route was not direct: {}", db.id(), e.getMessage());
        }
    }
}
