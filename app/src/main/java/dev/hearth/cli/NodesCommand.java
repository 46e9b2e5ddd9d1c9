package dev.hearth.cli;

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
        cli.print(answer, () -> {
            var table = new Table("NAME", "STATE", "ADDRESS", "COMPUTERS", "DATABASES", "MEMORY", "CPUS", "LEASE UNTIL");
            answer.path("nodes").forEach(n -> table.row(n.path("name").asText(), n.path("state").asText(),
                    n.path("address").asText(), n.path("hosted").path("computers").asLong(),
                    n.path("hosted").path("databases").asLong(),
                    (n.path("hosted").path("computer_memory_bytes").asLong() >> 20) + "/"
                            + (n.path("capacity").path("memory_bytes").asLong() >> 20) + " MiB",
                    n.path("capacity").path("cpus").asInt(), n.path("lease_until").asText()));
            table.print(cli.out());
        });
        return 0;
    }
}
