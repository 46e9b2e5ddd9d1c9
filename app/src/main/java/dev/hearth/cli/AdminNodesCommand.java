package dev.hearth.cli;

import dev.hearth.server.Config;
import dev.hearth.server.nodes.NodeState;
import dev.hearth.server.nodes.NodeStore;
import dev.hearth.server.store.Store;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

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
            var table = new Table("NAME", "STATE", "ADDRESS", "COMPUTERS", "DATABASES", "MEMORY", "CPUS", "LEASE UNTIL");
            for (var n : opened.jdbi().withHandle(h -> new NodeStore().all(h, Instant.now()))) {
                var hosted = n.hosted();
                table.row(n.name(), n.state(), n.address(), hosted.computers(), hosted.databases(),
                        (hosted.computerMemoryBytes() >> 20) + "/" + (n.capacity().memoryBytes() >> 20) + " MiB",
                        n.capacity().cpus(), n.leaseUntil());
            }
            table.print(admin.cli.out());
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
