package dev.hearth.server.databases;

import dev.hearth.server.postgres.Cluster;
import dev.hearth.server.postgres.Clusters;
import dev.hearth.server.process.Commands;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a requested sleep waits for before it stops a cluster: logins on their way to it (a login
 * cut short makes pgbouncer 1.18 turn away the pool's next clients, check_fast_fail).
 */
final class LoginsInFlight {
    private static final Logger LOG = LoggerFactory.getLogger(LoginsInFlight.class);
    // The most a requested sleep waits for logins on their way to the cluster to finish.
    private static final Duration SETTLE_LIMIT = Duration.ofSeconds(5);

    private LoginsInFlight() {
    }

    /**
     * Waits (at most {@link #SETTLE_LIMIT}) until every connection the kernel holds to the cluster is
     * a session PostgreSQL lists (by client port); one it does not list yet is still logging in.
     */
    static void await(String id, Cluster cluster, Clusters clusters) throws InterruptedException {
        long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
        while (System.nanoTime() < deadline) {
            var held = TcpConnections.remotePorts(cluster.port());
            if (held.isEmpty() || sessions(cluster, clusters).map(s -> s.containsAll(held)).orElse(true)) {
                return;
            }
            Thread.sleep(20);
        }
        LOG.info("database {}: logins still under way after {}; it sleeps anyway", id, SETTLE_LIMIT);
    }

    /** The client ports of the sessions PostgreSQL lists; empty if it cannot say (it is stopping anyway). */
    private static Optional<Set<Integer>> sessions(Cluster cluster, Clusters clusters) {
        try {
            return Optional.of(clusters.sessionPorts(cluster));
        } catch (Commands.Failure | NumberFormatException e) {
            return Optional.empty();
        }
    }
}
