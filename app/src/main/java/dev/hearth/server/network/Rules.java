package dev.hearth.server.network;

import dev.hearth.server.network.Firewall.ComputerRule;
import dev.hearth.server.network.Firewall.DatabaseRule;
import dev.hearth.server.network.Firewall.RemoteMember;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What Hearth's table should hold, kept beside the table itself so that the whole table can be put
 * back when something else removed or changed it. Computers are keyed by their veth, databases by
 * their workspace and address (a route to another port replaces the entry).
 */
final class Rules {
    private final Map<String, ComputerRule> computers = new LinkedHashMap<>();
    private final Map<String, ComputerRule> asleep = new LinkedHashMap<>();
    private final Map<String, DatabaseRule> databases = new LinkedHashMap<>();
    private Set<RemoteMember> remote = Set.of();

    void replace(Collection<ComputerRule> newComputers, Collection<DatabaseRule> newDatabases,
                 Collection<ComputerRule> newAsleep) {
        computers.clear();
        asleep.clear();
        databases.clear();
        newComputers.forEach(this::put);
        newDatabases.forEach(this::put);
        newAsleep.forEach(c -> asleep(c, true));
    }

    void put(ComputerRule c) {
        computers.put(c.slot().hostVeth(), c);
    }

    void remove(ComputerRule c) {
        computers.remove(c.slot().hostVeth());
        asleep.remove(c.slot().hostVeth());
    }

    void asleep(ComputerRule c, boolean isAsleep) {
        if (isAsleep) {
            asleep.put(c.slot().hostVeth(), c);
        } else {
            asleep.remove(c.slot().hostVeth());
        }
    }

    void put(DatabaseRule d) {
        databases.put(key(d), d);
    }

    void remove(DatabaseRule d) {
        databases.remove(key(d));
    }

    List<ComputerRule> computers() {
        return List.copyOf(computers.values());
    }

    List<ComputerRule> asleep() {
        return List.copyOf(asleep.values());
    }

    void remote(Set<RemoteMember> now) {
        remote = Set.copyOf(now);
    }

    Set<RemoteMember> remote() {
        return remote;
    }

    List<DatabaseRule> databases() {
        return List.copyOf(databases.values());
    }

    private static String key(DatabaseRule d) {
        return d.workspace() + " " + d.vip();
    }
}
