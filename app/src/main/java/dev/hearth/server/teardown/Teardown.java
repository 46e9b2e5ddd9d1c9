package dev.hearth.server.teardown;

import dev.hearth.server.network.ComputerNetwork;
import dev.hearth.server.network.DirectPorts;
import dev.hearth.server.network.Overlay;
import dev.hearth.server.nodes.NodeLease;
import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.runsc.RunscRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;

/**
 * Everything a data directory's servers left on the host, taken down while no server uses it:
 * sandboxes (thawed first), their network namespaces and cgroups, the processes that name the
 * directory (PostgreSQL, pgbouncer, a sandbox's helpers), the two nftables tables, and the loop
 * mounts under it, innermost first. The directory itself stays unless the caller deletes it.
 */
public final class Teardown {
    private static final Duration QUICK = Duration.ofSeconds(30);

    /** What was taken down. */
    public record Report(int sandboxes, int networks, int cgroups, int processes, int tables, int mounts) {
        public int total() {
            return sandboxes + networks + cgroups + processes + tables + mounts;
        }
    }

    private Teardown() {
    }

    /** Takes the directory down; refused while a hearth serve uses it. */
    public static Report run(Path dataDir) throws IOException {
        Path dir = dataDir.toAbsolutePath().normalize();
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("no data directory at " + dir);
        }
        if (NodeLease.served(dir)) {
            throw new IllegalStateException("a hearth serve is using " + dir + "; stop it first");
        }
        var removed = RunscRuntime.removeAll(dir.resolve("runsc"));
        int processes = Processes.endThoseNaming(dir);
        int cgroups = RunscRuntime.removeCgroups(dir.resolve("runsc"));
        int tables = drop("inet " + ComputerNetwork.tableFor(dir)) + drop("ip " + DirectPorts.tableFor(dir));
        Overlay.remove(ComputerNetwork.overlayFor(dir));
        int mounts = unmountUnder(dir);
        return new Report(removed.sandboxes(), removed.networks(), cgroups, processes, tables, mounts);
    }

    private static int drop(String table) {
        if (!Commands.run(List.of("nft", "list", "table", table.split(" ")[0], table.split(" ")[1]), QUICK).ok()) {
            return 0;
        }
        Commands.check(List.of("nft", "delete", "table", table.split(" ")[0], table.split(" ")[1]), QUICK);
        return 1;
    }

    /** Computers' and databases' disks are loop mounts under the directory; innermost go first. */
    public static int unmountUnder(Path dir) throws IOException {
        String under = dir.toAbsolutePath().normalize() + "/";
        var mountPoints = Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                .map(line -> line.split(" ")[4].replace("\\040(deleted)", "").replace("\\040", " "))
                .filter(m -> m.startsWith(under)).sorted(Comparator.comparing(String::length).reversed()).toList();
        int unmounted = 0;
        for (String mountPoint : mountPoints) {
            if (Commands.run(List.of("umount", "-l", mountPoint), QUICK).ok()) {
                unmounted++;
            }
        }
        return unmounted;
    }
}
