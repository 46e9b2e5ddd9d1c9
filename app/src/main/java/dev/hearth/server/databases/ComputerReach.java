package dev.hearth.server.databases;

import dev.hearth.server.network.Cidr;
import dev.hearth.server.network.Firewall;
import dev.hearth.server.network.Services;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How the computers of a database's workspace reach it: at an address of its own (derived from its
 * port's place in the port range), whose 5432 and 6432 the firewall sends to its wake proxy (its
 * cluster while awake) and the pooler on the services address. Without computers' networking,
 * nothing is exposed.
 */
record ComputerReach(Optional<Firewall> firewall, int firstPort) {

    /** Where the wake proxy and the pooler listen: the public address, and the services address. */
    List<String> listenOn(String listenHost) {
        var hosts = new ArrayList<>(List.of(listenHost));
        firewall.ifPresent(f -> hosts.add(Services.ADDRESS.host()));
        return hosts;
    }

    /** The address computers reach the database at. */
    Cidr address(int port) {
        return Services.databaseAddress(port - firstPort);
    }

    void expose(Database db, int poolerPort) {
        firewall.ifPresent(f -> f.putDatabase(rule(db, poolerPort)));
    }

    void hide(Database db, int poolerPort) {
        firewall.ifPresent(f -> f.removeDatabase(rule(db, poolerPort)));
    }

    /** While its cluster is awake (listening on the services address too), 5432 goes straight to it. */
    void direct(Database db, int poolerPort, int clusterPort) {
        firewall.ifPresent(f -> f.routeDatabase(rule(db, poolerPort), rule(db, poolerPort, clusterPort)));
    }

    /** Back to the wake proxy, before the cluster stops. */
    void proxied(Database db, int poolerPort, int clusterPort) {
        firewall.ifPresent(f -> f.routeDatabase(rule(db, poolerPort, clusterPort), rule(db, poolerPort)));
    }

    private Firewall.DatabaseRule rule(Database db, int poolerPort) {
        return rule(db, poolerPort, db.placement().port());
    }

    private Firewall.DatabaseRule rule(Database db, int poolerPort, int target) {
        return new Firewall.DatabaseRule(db.workspace(), address(db.placement().port()), target, poolerPort);
    }
}
