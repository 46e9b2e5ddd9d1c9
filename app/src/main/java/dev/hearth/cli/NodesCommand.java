package dev.hearth.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.hearth.api.Json;
import dev.hearth.api.nodes.NodeView;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code hearth nodes}: the cluster's nodes through the API (the server's operator only). */
@Command(name = "nodes", description = "List the cluster's nodes (the server's operator only; "
        + "`hearth admin nodes` reads the store on a node's host).")
final class NodesCommand implements Callable<Integer> {
    @ParentCommand
    Cli cli;

    @Override
    public Integer call() {
        var answer = cli.client().get("/nodes");
        cli.print(answer, () -> print(cli.out(), Json.mapper().convertValue(answer.path("nodes"),
                new TypeReference<List<NodeView>>() { })));
        return 0;
    }

    /** The nodes as a table: this command's (through the API) and {@code hearth admin nodes}' (from the store). */
    static void print(PrintStream out, List<NodeView> nodes) {
        var table = new Table("NAME", "STATE", "ADDRESS", "COMPUTERS", "DATABASES", "MEMORY", "CPUS", "LEASE UNTIL");
        for (var n : nodes) {
            var hosted = n.hosted();
            table.row(n.name(), n.state(), n.address(), hosted.computers(), hosted.databases(),
                    (hosted.computerMemoryBytes() >> 20) + "/" + (n.capacity().memoryBytes() >> 20) + " MiB",
                    n.capacity().cpus(), n.leaseUntil());
        }
        table.print(out);
    }
}
