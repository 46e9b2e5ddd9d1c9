package dev.hearth.server.databases;

import dev.hearth.server.pgwire.WakeProxy;
import dev.hearth.server.postgres.Pooler;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The databases other nodes run, reached through this one: each keeps its port here too (the wake
 * proxy relays a connection to that node's port for it), has an entry in this node's pooler (which
 * logs into its cluster on that node) and is reached by name from this node's computers. Read
 * from the store every {@link #EVERY_SECONDS}; a database that moved here or away keeps its
 * listener, only where its connections go changes.
 */
final class Elsewhere {
    private static final Logger LOG = LoggerFactory.getLogger(Elsewhere.class);
    static final int EVERY_SECONDS = 2;

    private final DatabaseRows rows;
    private final WakeProxy proxy;
    private final Pooler pooler;
    private final ComputerReach reach;
    private final String listenHost;
    private final Predicate<String> servedHere;
    private final Map<String, Away> away;
    // Ports another node on this same host listens on itself: nothing to relay, and binding them would steal them.
    private final Set<String> shared = new HashSet<>();

    /** Another node's database as this node reaches it: at {@code host} (that node's), on its own port. */
    record Away(Database database, String host) {
        /** Resolved at each connection: a node's address may be a name. */
        InetSocketAddress target() {
            return new InetSocketAddress(host, database.placement().port());
        }
    }

    /**
     * Where connections to other nodes' databases go, as this node knows it: read by the proxy (see
     * {@link Destinations}), kept by {@link Elsewhere}.
     */
    static final class Targets {
        private final Map<String, Away> away = new ConcurrentHashMap<>();
        private final DatabaseRows rows;

        Targets(DatabaseRows rows) {
            this.rows = rows;
        }

        /** Where a connection to another node's database goes, read from the store when not known yet. */
        Optional<InetSocketAddress> of(String id) {
            var known = away.get(id);
            if (known != null) {
                return Optional.of(known.target());
            }
            return rows.elsewhere().stream().filter(a -> a.database().id().equals(id)).findFirst()
                    .map(Elsewhere::away).map(Away::target);
        }
    }

    Elsewhere(Targets targets, WakeProxy proxy, Pooler pooler, ComputerReach reach, String listenHost,
              Predicate<String> servedHere) {
        this.away = targets.away;
        this.rows = targets.rows;
        this.proxy = proxy;
        this.pooler = pooler;
        this.reach = reach;
        this.listenHost = listenHost;
        this.servedHere = servedHere;
    }

    /** Makes this node reach exactly the live databases the other nodes run now. */
    synchronized void refresh() {
        var now = new HashMap<String, Away>();
        for (var a : rows.elsewhere()) {
            if (!servedHere.test(a.database().id()) && !a.nodeAddress().isEmpty()) {
                now.put(a.database().id(), away(a));
            }
        }
        for (var id : Set.copyOf(away.keySet())) {
            if (!now.containsKey(id) && !servedHere.test(id)) {
                forget(id);
            }
        }
        now.forEach(this::reach);
    }

    /** A database that moved here: its listener stays, and its connections stop going elsewhere. */
    synchronized void arrived(String id) {
        away.remove(id);
        shared.remove(id);
    }

    /**
     * A database that moved away from here to the node whose database ports are on {@code nodeAddress}:
     * its listener and computers' route stay, and its connections go there.
     */
    synchronized void departed(Database db, String nodeAddress) {
        away.put(db.id(), new Away(db, nodeAddress));
        if (onThisHost(nodeAddress)) {
            // That node listens on this host itself: this one's listener must give the port up.
            proxy.close(db.id());
            shared.add(db.id());
        }
        pooler.put(db.id(), new Pooler.Entry(nodeAddress, db.placement().port(), db.login().dbName()));
    }

    private void reach(String id, Away a) {
        var before = away.put(id, a);
        if (a.equals(before)) {
            return;
        }
        var db = a.database();
        int port = db.placement().port();
        String host = a.host();
        if (before == null && !onThisHost(host)) {
            try {
                proxy.open(id, reach.listenOn(listenHost), port);
            } catch (IOException e) {
                LOG.warn("database {} of node {}: its port {} cannot be opened here: {}", db.name(),
                        db.placement().node(), port, e.getMessage());
            }
        } else if (before == null) {
            shared.add(id);
        }
        pooler.put(id, new Pooler.Entry(host, port, db.login().dbName()));
        if (before == null) {
            reach.expose(db, pooler.port());
        }
    }

    private void forget(String id) {
        var gone = away.remove(id);
        if (!shared.remove(id)) {
            proxy.close(id);
        }
        pooler.remove(id);
        reach.hide(gone.database(), pooler.port());
    }

    private static Away away(DatabaseStore.Away a) {
        return new Away(a.database(), a.nodeAddress());
    }

    /**
     * Whether {@code host} is an address of this network namespace: then the other node shares this
     * host, its own listener is there, and a second one here would take its port.
     */
    static boolean onThisHost(String host) {
        try {
            var address = InetAddress.getByName(host);
            return address.isLoopbackAddress() || address.isAnyLocalAddress()
                    || NetworkInterface.getByInetAddress(address) != null;
        } catch (IOException e) {
            return false;
        }
    }
}
