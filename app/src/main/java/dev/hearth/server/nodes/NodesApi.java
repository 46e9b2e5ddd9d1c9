package dev.hearth.server.nodes;

import dev.hearth.api.nodes.NodeView;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.util.Map;

/** The cluster's nodes, for the server's operator (the console's Nodes page reads this). */
public final class NodesApi {
    private NodesApi() {
    }

    public static void register(RouteTable routes, LocalNode node) {
        routes.add("GET", "/nodes", Scope.operator(), ex -> Reply.ok(Map.of("nodes",
                        node.all().stream().map(Node::view).toList())))
                .summary("Every node sharing the store, its state and what it hosts (operator only)")
                .answers(Contract.all("nodes", NodeView.class));
    }
}
