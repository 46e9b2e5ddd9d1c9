package dev.hearth.server;

import dev.hearth.server.computers.ComputerService;
import dev.hearth.server.databases.DatabaseService;
import dev.hearth.server.network.Directory;
import dev.hearth.server.nodes.LocalNode;
import dev.hearth.server.nodes.Node;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What computers' resolver and waker ask, answered by the computers and databases: both are built
 * after the network, and asked only once queries and connections arrive.
 */
final class NetworkDirectory implements Directory {
    private final Supplier<ComputerService> computers;
    private final Supplier<DatabaseService> databases;
    private final LocalNode node;

    NetworkDirectory(Supplier<ComputerService> computers, Supplier<DatabaseService> databases, LocalNode node) {
        this.computers = computers;
        this.databases = databases;
        this.node = node;
    }

    @Override
    public Optional<String> workspaceOf(InetAddress computer) {
        return computers.get().addresses().workspaceAt(computer);
    }

    @Override
    public Optional<InetAddress> computer(String workspace, String name) {
        return computers.get().addresses().addressOf(workspace, name);
    }

    @Override
    public Optional<InetAddress> database(String workspace, String name) {
        return databases.get().internalAddress(workspace, name);
    }

    @Override
    public List<Remote> elsewhere() {
        if (computers.get() == null) {
            return List.of(); // still starting
        }
        var elsewhere = computers.get().addresses().elsewhere();
        if (elsewhere.isEmpty()) {
            return List.of();
        }
        var hosts = new HashMap<String, InetAddress>();
        node.all().forEach(n -> host(n).ifPresent(h -> hosts.put(n.name(), h)));
        return elsewhere.stream().filter(e -> hosts.containsKey(e.node()))
                .map(e -> new Remote(e.workspace(), e.address(), hosts.get(e.node()))).toList();
    }

    /** The host of a node's address (HOST:PORT), where its overlay's end is. */
    static Optional<InetAddress> host(Node n) {
        return host(n.address());
    }

    static Optional<InetAddress> host(String address) {
        String host = address.substring(0, address.lastIndexOf(':')).replaceAll("^\\[|]$", "");
        try {
            return Optional.of(InetAddress.getByName(host));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }
}
