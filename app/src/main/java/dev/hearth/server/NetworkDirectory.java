package dev.hearth.server;

import dev.hearth.server.computers.ComputerService;
import dev.hearth.server.databases.DatabaseService;
import dev.hearth.server.network.Directory;
import java.net.InetAddress;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What computers' resolver and waker ask, answered by the computers and databases: both are built
 * after the network, and asked only once queries and connections arrive.
 */
final class NetworkDirectory implements Directory {
    private final Supplier<ComputerService> computers;
    private final Supplier<DatabaseService> databases;

    NetworkDirectory(Supplier<ComputerService> computers, Supplier<DatabaseService> databases) {
        this.computers = computers;
        this.databases = databases;
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
}
