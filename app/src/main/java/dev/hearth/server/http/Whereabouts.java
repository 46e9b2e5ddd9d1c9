package dev.hearth.server.http;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which node's API answered lately for a resource another node runs: the next request for it goes
 * there at once, without reading the store here to learn it again (the node that runs it checks
 * everything itself). An entry is a hint, dropped when that node says the resource is not its own.
 */
final class Whereabouts {
    private static final long FRESH_NANOS = 10_000_000_000L;
    private static final int MAX = 10_000;

    private record Seen(String address, long at) {
    }

    private final Map<String, Seen> seen = new ConcurrentHashMap<>();

    /** The address of the node that answered for {@code resource} within the last ten seconds. */
    Optional<String> of(String resource) {
        var s = seen.get(resource);
        if (s == null || System.nanoTime() - s.at() > FRESH_NANOS) {
            return Optional.empty();
        }
        return Optional.of(s.address());
    }

    void remember(String resource, String address) {
        if (seen.size() >= MAX) {
            seen.clear();
        }
        seen.put(resource, new Seen(address, System.nanoTime()));
    }

    void forget(String resource) {
        seen.remove(resource);
    }
}
