package dev.hearth.server.router;

import dev.hearth.server.nodes.NodeKey;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Function;

/**
 * How a router reaches computers other nodes run: through their routers, with requests signed by
 * the key nodes share ({@link NodeKey}) over the host name and path, so that the receiving router
 * lets them through without the caller's token (which was checked here) and never relays them again.
 *
 * @param routerOf a node's router address (host:port), when the node is known
 * @param scheme how routers reach each other: as this node's router is served
 */
public record OtherNodes(Function<String, Optional<String>> routerOf, NodeKey key, String scheme, Clock clock) {

    String vouch(String method, String hostAndPath) {
        return key.vouch(method, hostAndPath, "router", clock.instant());
    }

    boolean verify(String vouch, String method, String hostAndPath) {
        return key.verify(vouch, method, hostAndPath, clock.instant()).isPresent();
    }
}
