package dev.hearth.server.teardown;

import dev.hearth.server.network.ComputerNetwork;
import dev.hearth.server.nodes.NodeLease;
import dev.hearth.server.process.Commands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What other data directories' servers left on this host, swept when a server starts: every
 * instance notes its data directory in a host-wide list ({@code /run/hearth/instances/<digest>},
 * gone at reboot with everything it names). A table of Hearth's ({@code inet hearth_<digest>},
 * {@code ip hearthdb_<digest>}) whose server no longer runs is removed, since its rules are keyed
 * by veth names and would act on this server's computers on the same slots; a data directory that
 * no longer exists is taken down whole (its processes and mounts too).
 */
public final class Leftovers {
    private static final Logger LOG = LoggerFactory.getLogger(Leftovers.class);
    private static final Path INSTANCES = Path.of("/run/hearth/instances");
    private static final Pattern TABLE = Pattern.compile("^table (inet hearth|ip hearthdb)_([0-9a-f]{10})$");
    private static final Duration QUICK = Duration.ofSeconds(30);

    private Leftovers() {
    }

    /** Notes this data directory, then sweeps what dead instances left. Never fails the start. */
    public static void sweep(Path dataDir) {
        Path dir = dataDir.toAbsolutePath().normalize();
        String own = digest(dir);
        try {
            Files.createDirectories(INSTANCES);
            Files.writeString(INSTANCES.resolve(own), dir.toString());
            for (String line : Commands.check(List.of("nft", "list", "tables"), QUICK).lines().toList()) {
                var m = TABLE.matcher(line.strip());
                if (m.matches() && !m.group(2).equals(own)) {
                    sweepTable(m.group(1) + "_" + m.group(2), m.group(2));
                }
            }
            sweepGoneDirectories();
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not sweep what other data directories left on this host: {}", e.getMessage());
        }
    }

    private static void sweepTable(String table, String digest) throws IOException {
        var owner = owner(digest);
        if (owner.isPresent() && Files.isDirectory(owner.get()) && NodeLease.served(owner.get())) {
            LOG.warn("nftables table {} belongs to a hearth serve running on {}: run one hearth serve with computers "
                    + "per host, or their computers' rules can meet", table, owner.get());
            return;
        }
        String[] familyAndName = table.split(" ");
        Commands.run(List.of("nft", "delete", "table", familyAndName[0], familyAndName[1]), QUICK);
        LOG.info("removed nftables table {} left by a server that no longer runs ({})", table,
                owner.map(Path::toString).orElse("data directory unknown"));
    }

    /** Data directories noted by servers that are gone from the disk: their processes and mounts go too. */
    private static void sweepGoneDirectories() throws IOException {
        try (var entries = Files.list(INSTANCES)) {
            for (Path entry : entries.toList()) {
                Path dir = Path.of(Files.readString(entry).strip());
                if (!Files.isDirectory(dir)) {
                    int processes = Processes.endThoseNaming(dir);
                    int mounts = Teardown.unmountUnder(dir);
                    if (processes + mounts > 0) {
                        LOG.info("{} no longer exists: ended {} processes and released {} mounts it left", dir,
                                processes, mounts);
                    }
                    Files.deleteIfExists(entry);
                }
            }
        }
    }

    private static Optional<Path> owner(String digest) throws IOException {
        Path entry = INSTANCES.resolve(digest);
        return Files.isRegularFile(entry) ? Optional.of(Path.of(Files.readString(entry).strip())) : Optional.empty();
    }

    private static String digest(Path dir) {
        return ComputerNetwork.tableFor(dir).substring("hearth_".length());
    }
}
