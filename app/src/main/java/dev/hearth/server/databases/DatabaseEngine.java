package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.databases.Connection;
import dev.hearth.fs.Disk;
import dev.hearth.server.crypto.Keyring;
import dev.hearth.server.disks.Volume;
import dev.hearth.server.postgres.Certificates;
import dev.hearth.server.postgres.Clusters;
import dev.hearth.server.postgres.Pooler;
import dev.hearth.server.postgres.PostgresHost;
import dev.hearth.server.postgres.Scram;
import dev.hearth.server.store.Ids;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The programs that run databases on this host: PostgreSQL's clusters, pgbouncer in front of them
 * and the CA clients check both with, on a volume whose copies share blocks where the host allows.
 * {@link #open} finds PostgreSQL, makes the volume and the TLS material, prepares the directories
 * the clusters' OS user needs, and starts pgbouncer.
 */
public record DatabaseEngine(Clusters clusters, Pooler pooler, String caPem, Volume volume, boolean poolerRekeyed) {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseEngine.class);

    /**
     * What this node shares with the others on its store: {@code keyring} seals the CA and the
     * pooler's password in the store; other nodes reach its database ports at {@code nodeAddress}
     * (its certificate names it); {@code sharedStore}: other nodes may use the store (PostgreSQL).
     */
    public record Sharing(Keyring keyring, String nodeAddress, boolean sharedStore) {
    }

    /** The PostgreSQL version a new database runs: the one asked for, installed here, or the default. */
    String version(String requested) {
        var postgres = clusters.host();
        if (requested == null) {
            return postgres.defaultVersion();
        }
        if (!requested.matches("[1-9][0-9]{0,2}")) {
            throw ApiException.invalidField("version", "must be a PostgreSQL major version, such as \""
                    + postgres.defaultVersion() + "\"; installed: " + String.join(", ", postgres.versions()));
        }
        if (!postgres.versions().contains(requested)) {
            throw ApiException.invalidField("version", "PostgreSQL " + requested + " is not installed here; "
                    + "installed: " + String.join(", ", postgres.versions()));
        }
        return requested;
    }

    /**
     * What {@link #open} found: where databases' files go, and the engine, or why this host cannot
     * run databases (the service still starts then, and every database route says why: 503).
     */
    public record Found(Layout layout, Optional<DatabaseEngine> engine, String unavailable) {
    }

    /**
     * {@code alsoListen}: where else the pooler and the clusters listen (the services address
     * computers reach them at); {@code forwarded}: whether the kernel forwards database ports
     * straight to awake clusters, which then listen on the database listen address too.
     */
    public static Found open(DatabaseSettings settings, Path dataDir, Jdbi jdbi, DatabaseStore store,
                             List<String> alsoListen, boolean forwarded, Sharing sharing) {
        dataDir = dataDir.toAbsolutePath();
        Path root = dataDir.resolve("databases");
        var host = PostgresHost.probe();
        var reason = host.unavailableReason().or(() -> tooDeep(root));
        Optional<DatabaseEngine> engine = Optional.empty();
        if (reason.isEmpty()) {
            try {
                engine = Optional.of(assemble(settings, host, dataDir, root, jdbi, store, alsoListen, forwarded,
                        sharing));
            } catch (IOException | RuntimeException e) {
                reason = Optional.of(e.getMessage());
            }
        }
        reason.ifPresent(r -> LOG.warn("databases are unavailable: {}", r));
        return new Found(new Layout(root), engine, reason.orElse(""));
    }

    /**
     * A cluster's Unix socket is in its directory under the data directory, and a socket's path holds
     * at most 107 bytes: under a deeper data directory no cluster could start (nor say why to a client).
     */
    private static Optional<String> tooDeep(Path root) {
        String socket = new Layout(root).socketDir(Ids.next()).resolve(".s.PGSQL.65535").toString();
        int bytes = socket.getBytes(StandardCharsets.UTF_8).length;
        return bytes <= MAX_SOCKET_PATH ? Optional.empty() : Optional.of("the data directory's path is too long for "
                + "PostgreSQL's Unix sockets: a cluster's would be " + bytes + " bytes, and at most " + MAX_SOCKET_PATH
                + " fit; choose a --data-dir at most " + (root.getParent().toString().length() - bytes + MAX_SOCKET_PATH)
                + " characters long");
    }

    private static final int MAX_SOCKET_PATH = 107;

    private static DatabaseEngine assemble(DatabaseSettings settings, PostgresHost host, Path dataDir, Path root,
                                           Jdbi jdbi, DatabaseStore store, List<String> alsoListen,
                                           boolean forwarded, Sharing sharing) throws IOException {
        var volume = Volume.ensure(root, dataDir.resolve("databases.xfs"));
        prepareRoot(host, dataDir, root);
        Path secrets = dataDir.resolve("database-secrets");
        var names = new LinkedHashSet<>(List.of(settings.publicHost(), "*" + Connection.INTERNAL_DOMAIN));
        if (!sharing.nodeAddress().isEmpty()) {
            names.add(sharing.nodeAddress());
        }
        var certs = Certificates.ensure(secrets, root.resolve("tls"), names, host);
        secret(secrets.resolve(SharedSecrets.POOLER_PASSWORD));
        var changed = SharedSecrets.sync(jdbi, sharing.keyring(), secrets);
        if (changed.contains(SharedSecrets.CA_CERTIFICATE)) {
            certs = Certificates.ensure(secrets, root.resolve("tls"), names, host);
        }
        Path caCopy = root.resolve("tls").resolve("ca.crt");
        Files.copy(certs.caCertificate(), caCopy, StandardCopyOption.REPLACE_EXISTING);
        String poolerPassword = secret(secrets.resolve(SharedSecrets.POOLER_PASSWORD));
        var listen = new ArrayList<>(List.of("127.0.0.1"));
        listen.addAll(alsoListen);
        if (forwarded) {
            WirePaths.forwardedAddress(settings.listenHost()).filter(a -> !listen.contains(a) && !a.startsWith("127."))
                    .ifPresent(listen::add);
        }
        var clusters = new Clusters(host, root, certs, poolerPassword, listen, sharing.sharedStore());
        Path poolerDir = root.resolve("pgbouncer");
        Files.createDirectories(poolerDir);
        host.giveToClusterUser(poolerDir);
        var entries = new LinkedHashMap<String, Pooler.Entry>();
        jdbi.withHandle(store::live).forEach(d -> entries.put(d.id(),
                Pooler.Entry.here(d.placement().port(), d.login().dbName())));
        int poolerPort = settings.poolerPort() == 0 ? PortPool.freePort() : settings.poolerPort();
        var pooler = Pooler.start(host, poolerDir, settings.listenHost(), alsoListen, poolerPort, certs, caCopy,
                poolerPassword, entries);
        return new DatabaseEngine(clusters, pooler, certs.caPem(), volume,
                changed.contains(SharedSecrets.POOLER_PASSWORD));
    }

    /** databases/ itself: the clusters' OS user's, closed to everyone else, and reachable by that user. */
    private static void prepareRoot(PostgresHost host, Path dataDir, Path root) throws IOException {
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
