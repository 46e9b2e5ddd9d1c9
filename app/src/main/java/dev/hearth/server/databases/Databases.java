package dev.hearth.server.databases;

import dev.hearth.fs.Disk;
import dev.hearth.server.checkpoints.CheckpointStore;
import dev.hearth.server.crypto.Keyring;
import dev.hearth.server.postgres.Certificates;
import dev.hearth.server.postgres.Clusters;
import dev.hearth.server.postgres.Pooler;
import dev.hearth.server.postgres.PostgresHost;
import dev.hearth.server.postgres.Scram;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Assembles the database side of {@code hearth serve}: finds PostgreSQL, makes the TLS material,
 * prepares the directories the clusters' OS user needs, and starts pgbouncer. When this host cannot
 * run databases, the service still starts and every database route says why (503).
 */
public final class Databases {
    private static final Logger LOG = LoggerFactory.getLogger(Databases.class);

    private Databases() {
    }

    public static DatabaseService open(DatabaseSettings settings, Path dataDir, Clock clock, Jdbi jdbi,
                                       DatabaseStore store, CheckpointStore checkpoints, Keyring keyring) {
        dataDir = dataDir.toAbsolutePath();
        Path root = dataDir.resolve("databases");
        var host = PostgresHost.probe();
        var reason = host.unavailableReason();
        Optional<DatabaseService.Engine> engine = Optional.empty();
        if (reason.isEmpty()) {
            try {
                engine = Optional.of(engine(settings, host, dataDir, root, jdbi, store));
            } catch (IOException | RuntimeException e) {
                reason = Optional.of(e.getMessage());
            }
        }
        reason.ifPresent(r -> LOG.warn("databases are unavailable: {}", r));
        var ports = new DatabaseService.Ports(settings.publicHost(), settings.listenHost(), settings.firstPort(),
                settings.lastPort());
        return new DatabaseService(jdbi, store, checkpoints, keyring, engine, reason.orElse(""), root, ports, clock);
    }

    private static DatabaseService.Engine engine(DatabaseSettings settings, PostgresHost host, Path dataDir, Path root,
                                                 Jdbi jdbi, DatabaseStore store) throws IOException {
        if (host.separateUser()) {
            openForClusterUser(dataDir);
        }
        Files.createDirectories(root);
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));
        host.giveToClusterUser(root);
        if (!host.reachable(root)) {
            throw new IllegalStateException("the postgres OS user cannot reach " + root + "; every directory above it "
                    + "must let others pass (chmod o+x), or choose another --data-dir");
        }
        Path secrets = dataDir.resolve("database-secrets");
        var certs = Certificates.ensure(secrets, root.resolve("tls"), Set.of(settings.publicHost()), host);
        Path caCopy = root.resolve("tls").resolve("ca.crt");
        Files.copy(certs.caCertificate(), caCopy, StandardCopyOption.REPLACE_EXISTING);
        String poolerPassword = secret(secrets.resolve("pgbouncer-password"));
        var clusters = new Clusters(host, root, certs, poolerPassword);
        Path poolerDir = root.resolve("pgbouncer");
        Files.createDirectories(poolerDir);
        host.giveToClusterUser(poolerDir);
        var entries = new LinkedHashMap<String, Pooler.Entry>();
        jdbi.withHandle(store::live).forEach(d -> entries.put(d.id(), new Pooler.Entry(d.placement().port(), d.login().dbName())));
        int poolerPort = settings.poolerPort() == 0 ? ClusterSupervisor.freePort() : settings.poolerPort();
        var pooler = Pooler.start(host, poolerDir, settings.listenHost(), poolerPort, certs, caCopy, poolerPassword,
                entries);
        return new DatabaseService.Engine(clusters, pooler, certs.caPem());
    }

    /**
     * PostgreSQL refuses to run as root, so the clusters' OS user must pass through the data
     * directory to reach databases/: the directory becomes 0711 (others may pass, not list), and
     * everything else in it is closed to others.
     */
    private static void openForClusterUser(Path dataDir) throws IOException {
        Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwx--x--x"));
        try (Stream<Path> children = Files.list(dataDir)) {
            for (Path child : children.toList()) {
                if (child.getFileName().toString().equals("databases") || Files.isSymbolicLink(child)) {
                    continue;
                }
                Files.setPosixFilePermissions(child, PosixFilePermissions.fromString(
                        Files.isDirectory(child) ? "rwx------" : "rw-------"));
            }
        }
    }

    /** Closes to others what was made in the data directory after it was opened for the clusters' user. */
    public static void closeDataDir(Path dataDir) {
        dataDir = dataDir.toAbsolutePath();
        try {
            if (PostgresHost.probe().separateUser() && Files.isDirectory(dataDir.resolve("databases"))) {
                openForClusterUser(dataDir);
            }
        } catch (IOException e) {
            LOG.warn("cannot close {} to others: {}", dataDir, e.toString());
        }
    }

    private static String secret(Path file) throws IOException {
        if (!Files.exists(file)) {
            Disk.writePrivate(file, Scram.newPassword());
        }
        return Files.readString(file).strip();
    }
}
