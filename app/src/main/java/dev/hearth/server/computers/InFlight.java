package dev.hearth.server.computers;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Router requests in flight into computers, each with a way to end it. A sandbox that dies (the
 * host's OOM killer, a crash) neither answers nor resets the connections into it: without this, a
 * request it was answering would wait for the router's whole timeout (120 s by default) and then
 * say the computer was slow.
 */
final class InFlight {
    private final Map<String, Set<Consumer<String>>> byComputer = new ConcurrentHashMap<>();

    /** A request begins; {@code end} ends it with the reason given. Run what this answers once it is over. */
    Runnable begins(String computerId, Consumer<String> end) {
        byComputer.computeIfAbsent(computerId, id -> ConcurrentHashMap.newKeySet()).add(end);
        return () -> byComputer.computeIfPresent(computerId, (id, ends) -> {
            ends.remove(end);
            return ends.isEmpty() ? null : ends;
        });
    }

    /** The computer's sandbox is gone: every request in flight into it ends now. */
    void endAll(String computerId, String why) {
        var ends = byComputer.remove(computerId);
        if (ends != null) {
            ends.forEach(end -> end.accept(why));
        }
    }
}
