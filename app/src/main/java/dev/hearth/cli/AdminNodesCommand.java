package dev.hearth.cli;

import dev.hearth.api.nodes.NodeState;
import dev.hearth.server.Config;
import dev.hearth.server.nodes.Joining;
import dev.hearth.server.nodes.Node;
import dev.hearth.server.nodes.NodeStore;
import dev.hearth.server.store.Store;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;

/** {@code hearth admin nodes}: the nodes sharing the store, and an operator's drain of one. */
@Command(name = "nodes", description = "The nodes sharing the store: state, what each hosts and has (read from the store).")
final class AdminNodesCommand implements Callable<Integer> {
    @ParentCommand
    AdminCommand admin;

    @Option(names = "--data-dir", scope = ScopeType.INHERIT, paramLabel = "DATA_DIR", defaultValue = "${env:HEARTH_DATA_DIR:-.hearth}", description = "data directory (default ${DEFAULT-VALUE})")
    Path dataDir;

    @Option(names = "--store", scope = ScopeType.INHERIT, paramLabel = "STORE", defaultValue = "${env:HEARTH_STORE}", description = "postgresql://user:pass@host:port/db of a shared store (default: SQLite in the data directory)")
    String store;

    @Override
    public Integer call() {
        try (var opened = open()) {
            NodesCommand.print(admin.cli.out(), opened.jdbi().withHandle(h -> new NodeStore().all(h, Instant.now()))
                    .stream().map(Node::view).toList());
        }
        return 0;
    }

    @Command(name = "drain", description = "Place no new computers or databases on the node (creates there are refused), "
            + "and move its sleeping computers and databases to other nodes.")
    int drain(@Parameters(paramLabel = "NAME", description = "the node") String name) {
        return mark(name, NodeState.DRAINING);
    }

    @Command(name = "undrain", description = "Let the node take new computers and databases again.")
    int undrain(@Parameters(paramLabel = "NAME", description = "the node") String name) {
        return mark(name, NodeState.UP);
    }

    @Command(name = "join-token", description = "Print a token a new node joins with: hearth serve --join TOKEN --store STORE "
            + "--node NAME on its machine takes this node's signing and encryption keys and the cluster's public URL "
            + "(sealed in the store under a key only the token holds). Run it on a node's host, with its --data-dir.")
    int joinToken(
            @Option(names = "--minutes", paramLabel = "MINUTES", defaultValue = "60", description = "how long it can be used (default ${DEFAULT-VALUE})") long minutes,
            @Option(names = "--public-url", paramLabel = "PUBLIC_URL", description = "the cluster's base URL (default: the one this node registered)") String publicUrl,
            @Option(names = "--encryption-keys", paramLabel = "ENCRYPTION_KEYS", defaultValue = "${env:HEARTH_ENCRYPTION_KEYS}", description = "AES key file for secrets at rest (default: {data_dir}/encryption-keys.json)") Path keys)
            throws java.io.IOException {
        if (minutes < 1 || minutes > 7 * 24 * 60) {
            admin.cli.context.err().println("error: --minutes is 1 to 10080 (a week)");
            return 2;
        }
        var config = Config.defaults(dataDir).withStore(store).withEncryptionKeys(java.util.Optional.ofNullable(keys));
        String token;
        try {
            token = Joining.tokenFor(config.store(), dataDir, config.encryptionKeyFile(),
                    java.util.Optional.ofNullable(publicUrl), java.time.Duration.ofMinutes(minutes));
        } catch (IllegalArgumentException e) {
            admin.cli.context.err().println("error: " + e.getMessage());
            return 1;
        }
        admin.cli.out().println(token);
        admin.cli.context.err().println("valid for " + minutes + " minutes; on the new machine: hearth serve --join TOKEN"
                + " --store STORE --node NAME ... (the same store as this node's)");
        return 0;
    }

    private int mark(String name, NodeState state) {
        try (var opened = open()) {
            if (!opened.jdbi().inTransaction(h -> new NodeStore().setState(h, name, state))) {
                admin.cli.context.err().println("error: no node named " + name);
                return 1;
            }
            admin.cli.out().println("node " + name + " is " + state);
        }
        return 0;
    }

    private Store open() {
        return Store.open(Config.defaults(dataDir).withStore(store).store(), dataDir);
    }
}
