package dev.hearth.cli;

import dev.hearth.fs.Disk;
import dev.hearth.server.Config;
import dev.hearth.server.nodes.NodeLease;
import dev.hearth.server.pool.PoolStore;
import dev.hearth.server.store.Store;
import dev.hearth.server.teardown.Teardown;
import dev.hearth.server.variables.KeyRotation;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code hearth admin}: maintenance run on the server's host, against its data directory and store. */
@Command(name = "admin", addMethodSubcommands = false, subcommands = AdminNodesCommand.class, description = "Maintenance on the server's host (reads the data directory and store directly).")
final class AdminCommand {
    @ParentCommand
    Cli cli;

    @Command(name = "rotate-encryption-key",
            description = "Seal every secret with a new key and drop keys no longer used. Safe while hearth serve runs.")
    int rotateEncryptionKey(
            @Option(names = "--data-dir", paramLabel = "DATA_DIR", defaultValue = "${env:HEARTH_DATA_DIR:-.hearth}", description = "data directory (default ${DEFAULT-VALUE})") Path dataDir,
            @Option(names = "--store", paramLabel = "STORE", defaultValue = "${env:HEARTH_STORE}", description = "postgresql://user:pass@host:port/db of a shared store (default: SQLite in the data directory)") String store,
            @Option(names = "--encryption-keys", paramLabel = "ENCRYPTION_KEYS", defaultValue = "${env:HEARTH_ENCRYPTION_KEYS}", description = "AES key file for secrets at rest (default: {data_dir}/encryption-keys.json)") Path keys) {
        var config = Config.defaults(dataDir).withStore(store).withEncryptionKeys(Optional.ofNullable(keys));
        try (var opened = Store.open(config.store(), dataDir)) {
            var result = KeyRotation.rotate(config.encryptionKeyFile(), opened.jdbi());
            cli.out().println("active key " + result.activeKey() + "; re-sealed " + result.resealed()
                    + " values; dropped keys " + result.dropped());
        }
        return 0;
    }

    @Command(name = "pool", description = "The warm pool of the data directory's node: sandboxes booted ahead of creates, by image (read from the store).")
    int pool(
            @Option(names = "--data-dir", paramLabel = "DATA_DIR", defaultValue = "${env:HEARTH_DATA_DIR:-.hearth}", description = "data directory (default ${DEFAULT-VALUE})") Path dataDir,
            @Option(names = "--store", paramLabel = "STORE", defaultValue = "${env:HEARTH_STORE}", description = "postgresql://user:pass@host:port/db of a shared store (default: SQLite in the data directory)") String store) throws IOException {
        var config = Config.defaults(dataDir).withStore(store);
        try (var opened = Store.open(config.store(), dataDir)) {
            var table = new Table("ID", "IMAGE", "STATE", "SLOT", "SINCE");
            for (var p : opened.jdbi().withHandle(new PoolStore(NodeLease.nodeOf(dataDir))::all)) {
                table.row(p.id(), p.image(), p.state(), p.slot().index(), p.createdAt());
            }
            table.print(cli.out());
        }
        return 0;
    }

    @Command(name = "teardown", description = "Take a data directory down while no hearth serve uses it: stop its "
            + "computers and databases and remove the sandboxes, network namespaces, cgroups, nftables tables, mounts "
            + "and processes it left on this host. The directory stays (hearth serve on it starts them again) unless --delete.")
    int teardown(
            @Option(names = "--data-dir", paramLabel = "DATA_DIR", defaultValue = "${env:HEARTH_DATA_DIR:-.hearth}", description = "data directory (default ${DEFAULT-VALUE})") Path dataDir,
            @Option(names = "--delete", description = "delete the data directory afterwards (its computers, databases and keys are gone for good)") boolean delete) throws IOException {
        Teardown.Report report;
        try {
            report = Teardown.run(dataDir);
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        cli.out().printf("stopped %d sandboxes and %d processes; removed %d network namespaces, %d cgroups, "
                + "%d nftables tables and %d mounts%n", report.sandboxes(), report.processes(), report.networks(),
                report.cgroups(), report.tables(), report.mounts());
        if (delete) {
            Disk.deleteTree(dataDir);
            cli.out().println("deleted " + dataDir.toAbsolutePath().normalize());
        } else {
            cli.out().println("kept " + dataDir.toAbsolutePath().normalize() + " (hearth serve on it starts its "
                    + "computers and databases again)");
        }
        return 0;
    }
}
