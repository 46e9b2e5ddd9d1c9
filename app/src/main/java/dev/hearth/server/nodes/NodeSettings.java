package dev.hearth.server.nodes;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code --node NAME}: this process's node (default {@value #DEFAULT_NAME}, the one node of a
 * single-machine install); {@code --node-address HOST:PORT}: where other nodes reach its API
 * (default: the API's listen address); {@code --node-memory-mb}: the memory placement may give this
 * node's awake computers (default: the host's; more overcommits, less keeps some for the host);
 * {@code lease}: how long the node counts as up after its last renewal (renewed every third of it).
 */
public record NodeSettings(String name, Optional<String> address, Optional<Long> memoryMb, Duration lease) {
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,39}");
    public static final String DEFAULT_NAME = "local";
    public static final NodeSettings DEFAULT = new NodeSettings(DEFAULT_NAME, Optional.empty(), Optional.empty(),
            Duration.ofSeconds(15));

    public NodeSettings {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("--node must be 1-40 lowercase letters, digits and dashes, not " + name);
        }
        if (address.isPresent() && !address.get().matches("[^\\s:/]+:\\d{1,5}|\\[[0-9a-fA-F:]+\\]:\\d{1,5}")) {
            throw new IllegalArgumentException("--node-address must be HOST:PORT, not " + address.get());
        }
        if (memoryMb.isPresent() && memoryMb.get() < 64) {
            throw new IllegalArgumentException("--node-memory-mb must be at least 64, not " + memoryMb.get());
        }
        if (lease.toMillis() < 300) {
            throw new IllegalArgumentException("a node's lease must be at least 300 ms");
        }
    }

    public NodeSettings withName(String n) {
        return new NodeSettings(n, address, memoryMb, lease);
    }

    public NodeSettings withAddress(Optional<String> a) {
        return new NodeSettings(name, a, memoryMb, lease);
    }

    public NodeSettings withMemoryMb(Optional<Long> mb) {
        return new NodeSettings(name, address, mb, lease);
    }

    public NodeSettings withLease(Duration d) {
        return new NodeSettings(name, address, memoryMb, d);
    }
}
