package dev.hearth.server.databases;

import dev.hearth.server.pgwire.Backends;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Where the wake proxy sends a connection: to the cluster of a database this node runs (woken
 * first), or to the node that runs it now, also when it moved there while the connection waited.
 */
final class Destinations implements Backends {
    private final ClusterSupervisor supervisor;
    private final Function<String, Optional<InetSocketAddress>> elsewhere;
    private final Set<String> servedHere;
    private final Reconciling reconciling;

    /** {@code elsewhere}: where a database another node runs is reached (see {@link Elsewhere.Targets#of}). */
    Destinations(ClusterSupervisor supervisor, Function<String, Optional<InetSocketAddress>> elsewhere,
                 Set<String> servedHere, Reconciling reconciling) {
        this.supervisor = supervisor;
        this.elsewhere = elsewhere;
        this.servedHere = servedHere;
        this.reconciling = reconciling;
    }

    @Override
    public InetSocketAddress wake(String id) throws Refused {
        try {
            reconciling.await(id);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refused("57P03", "the database's node is starting");
        }
        if (servedHere.contains(id)) {
            try {
                return new InetSocketAddress(InetAddress.getLoopbackAddress(), supervisor.wake(id));
            } catch (ClusterSupervisor.Departed moved) {
                // it is the other node's now
            }
        }
        return elsewhere.apply(id).orElseThrow(() -> new Refused("3D000", "this database does not exist"));
    }

    @Override
    public Optional<InetSocketAddress> cancelTarget(String id) {
        if (servedHere.contains(id)) {
            var port = supervisor.awakePort(id);
            return port.isPresent() ? Optional.of(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    port.getAsInt())) : Optional.empty();
        }
        return elsewhere.apply(id);
    }

    @Override
    public void opened(String id) {
        if (servedHere.contains(id)) {
            supervisor.opened(id);
        }
    }

    @Override
    public void closed(String id) {
        if (servedHere.contains(id)) {
            supervisor.closed(id);
        }
    }
}
