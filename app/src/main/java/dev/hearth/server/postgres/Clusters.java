package dev.hearth.server.postgres;

import dev.hearth.fs.Disk;
import dev.hearth.server.process.Commands;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The PostgreSQL driver: one cluster per database, made by copying a template data directory,
 * changed while stopped with {@code postgres --single} (no port is opened), started with
 * {@code postgres} directly and stopped with SIGINT. Every instance setting is given on the
 * command line, so that copies and branches never carry stale ports or paths
 * (design/measured/postgres-clusters.md has the measurements behind each choice).
 */
public final class Clusters {
    // Bump when the template's contents change: a new directory is made, old databases keep theirs.
    private static final String TEMPLATE_REVISION = "r1";
    private static final String TEMPLATE_OWNER = "tpl_owner";
    private static final String TEMPLATE_DB = "tpl_db";
    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final Duration START_LIMIT = Duration.ofSeconds(60);
    // A start that first replays WAL to a moment: bases bound the WAL, replay runs at ~40-80 MiB/s.
    private static final Duration RECOVERY_LIMIT = Duration.ofMinutes(10);

    private final PostgresHost host;
    private final Path root;
    private final Certificates certificates;
    private final String poolerPassword;
    private final String listen;
    private final AccessRules rules;
    private final Extensions extensions;

    /**
     * {@code root} is owned by the clusters' OS user; {@code poolerPassword} is the pgbouncer role's;
     * clusters listen on {@code listen} (loopback first), each on a private port of its own; other
     * nodes' poolers log into them too when {@code poolersElsewhere} (see {@link AccessRules}).
     */
    public Clusters(PostgresHost host, Path root, Certificates certificates, String poolerPassword,
                    List<String> listen, boolean poolersElsewhere) throws IOException {
        this.host = host;
        this.listen = String.join(",", listen);
        this.root = root;
        this.certificates = certificates;
        this.poolerPassword = poolerPassword;
        this.rules = AccessRules.write(root.resolve("config"), host, poolersElsewhere);
        this.extensions = Extensions.write(root.resolve("config").resolve("extensions"), host);
    }

    public PostgresHost host() {
        return host;
    }

    /**
     * Makes a stopped cluster at {@code data} whose database {@code dbName} is owned by login role
     * {@code user} with the password behind {@code verifier}.
     */
    public void create(String version, Path data, String dbName, String user, String verifier) throws IOException {
        copy(prepare(version), data);
        single(version, data, "postgres", List.of(
                "ALTER DATABASE " + TEMPLATE_DB + " RENAME TO " + ident(dbName) + ";",
                "ALTER ROLE " + TEMPLATE_OWNER + " RENAME TO " + ident(user) + ";",
                "ALTER ROLE " + ident(user) + " PASSWORD " + literal(verifier) + ";"));
    }

    /** Sets a stopped cluster's role password (every other password of that role stops working). */
    public void setPassword(String version, Path data, String user, String verifier) {
        if (AtStart.pending(data)) {
            try {
                setPasswordAtStart(data, user, verifier); // after the one already waiting there
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return;
        }
        single(version, data, "postgres", List.of(alterPassword(user, verifier)));
    }

    /**
     * Sets a stopped cluster's role password at its next start, before anyone logs in over TCP
     * ({@link AtStart}): a new cluster made as a copy starts at once, with no single-user run first.
     */
    public void setPasswordAtStart(Path data, String user, String verifier) throws IOException {
        AtStart.add(data, alterPassword(user, verifier));
    }

    /**
     * Gives a stopped cluster's lookup role this node's pooler password at its next start: for a
     * cluster made when the pooler had another (a copy, or from before nodes shared one).
     */
    public void setPoolerPasswordAtStart(Path data) throws IOException {
        setPasswordAtStart(data, "pgbouncer", Scram.verifier(poolerPassword));
    }

    private static String alterPassword(String user, String verifier) {
        return "ALTER ROLE " + ident(user) + " PASSWORD " + literal(verifier) + ";";
    }

    /**
     * Sets a running cluster's role password and ends that role's sessions: PostgreSQL checks
     * passwords only when a session starts, so sessions opened with an old one would live on.
     */
    public void setPassword(Cluster cluster, String user, String verifier) {
        PrivateSessions.with(cluster, LIMIT, session -> {
            try (var statement = session.createStatement()) {
                statement.execute(alterPassword(user, verifier));
                statement.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = "
                        + literal(user));
            }
            return null;
        });
    }

    /** Makes a stopped cluster at {@code data} from a checkpoint's copy, with a new password from its first start. */
    public void branch(Path checkpoint, Path data, String user, String verifier) throws IOException {
        copy(checkpoint, data);
        setPasswordAtStart(data, user, verifier);
    }

    /**
     * Starts a stopped cluster that archives its WAL into {@code archive} and returns once it accepts
     * connections: after the recovery a branch at a moment asked for, if one is pending (see {@link History}).
     */
    public Cluster start(String version, Path data, Path socketDir, Path log, int port, Path archive)
            throws IOException {
        if (!History.pending(data)) {
            return start(version, data, socketDir, log, port, archive, List.of(), START_LIMIT);
        }
        Cluster cluster;
        try {
            cluster = start(version, data, socketDir, log, port, archive, History.recovering(data), RECOVERY_LIMIT);
        } catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains(History.ENDED_BEFORE_TARGET)) {
                throw e;
            }
            History.toEnd(data); // no commit after the moment: every commit is at or before it
            cluster = start(version, data, socketDir, log, port, archive, History.recovering(data), RECOVERY_LIMIT);
        }
        History.done(data);
        return cluster;
    }

    /**
     * Starts a stopped cluster as a standby with no primary ({@code standby.signal}, no restore command):
     * it replays what its pg_wal holds and stays in recovery, so it takes read-only sessions only
     * (its postmaster.pid then reads "ready" too).
     */
    public Cluster startReadOnly(String version, Path data, Path socketDir, Path log, int port, Path archive)
            throws IOException {
        Files.writeString(data.resolve("standby.signal"), "");
        return start(version, data, socketDir, log, port, archive, List.of("-c", "hot_standby=on"), START_LIMIT);
    }

    private Cluster start(String version, Path data, Path socketDir, Path log, int port, Path archive,
                          List<String> recovery, Duration limit) throws IOException {
        Files.deleteIfExists(socketDir.resolve(".s.PGSQL." + port + ".lock"));
        boolean atStart = AtStart.pending(data);
        Path hba = atStart ? AtStart.closedRules(data, AccessRules.CLOSED, host) : rules.file();
        var args = new ArrayList<String>(List.of(host.bin(version, "postgres").toString(), "-D", data.toString(),
                "-c", "port=" + port,
                "-c", "listen_addresses=" + listen,
                "-c", "unix_socket_directories=" + socketDir,
                "-c", "unix_socket_permissions=0700",
                "-c", "hba_file=" + hba,
                "-c", "ssl=on",
                "-c", "ssl_cert_file=" + certificates.serverCertificate(),
                "-c", "ssl_key_file=" + certificates.serverKey(),
                "-c", "ssl_min_protocol_version=TLSv1.2",
                "-c", "shared_buffers=16MB",
                "-c", "max_connections=100",
                "-c", "max_worker_processes=4",
                "-c", "max_logical_replication_workers=0",
                // A database's WAL disk holds four times this: checkpoints keep WAL well inside it.
                "-c", "max_wal_size=256MB",
                // A copy made from a running cluster starts with a crash recovery, which first makes the
                // whole data directory durable: one syncfs, not an fsync of every file.
                "-c", "recovery_init_sync_method=syncfs",
                "-c", "logging_collector=off"));
        args.addAll(History.archiving(archive));
        args.addAll(Insights.loading(host.bin(version, "postgres")));
        args.addAll(extensions.loading(version));
        args.addAll(recovery);
        var command = host.asClusterUser(args);
        var process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        var cluster = new Cluster(process, port, socketDir, version);
        awaitReady(cluster, data, log, limit);
        if (atStart) {
            try {
                AtStart.run(data, rules.open(), () -> PrivateSessions.open(cluster, LIMIT));
            } catch (IOException | SQLException | RuntimeException e) {
                stop(cluster);
                throw new IOException("the statements of the cluster's first start failed: " + e.getMessage(), e);
            }
        }
        return cluster;
    }

    /** Fast shutdown (SIGINT): sessions end, a clean checkpoint is written; SIGQUIT after the grace. */
    public void stop(Cluster cluster) {
        stop(cluster.process().toHandle());
    }

    /** Stops a postmaster this process did not start (found in postmaster.pid after a restart of Hearth). */
    public void stop(ProcessHandle postmaster) {
        Postmasters.stop(postmaster);
    }

    /** The live postmaster of a data directory, if one runs (postmaster.pid names it, /proc confirms it). */
    public Optional<ProcessHandle> postmasterOf(Path data) {
        return Postmasters.of(data);
    }

    /**
     * The client ports of the sessions logged in over TCP (PostgreSQL 15 lists a backend only once
     * it is past authentication; its own session over the socket shows -1).
     */
    public Set<Integer> sessionPorts(Cluster cluster) {
        return PrivateSessions.with(cluster, LIMIT, session -> {
            var ports = new HashSet<Integer>();
            try (var rows = session.createStatement().executeQuery(
                    "SELECT client_port FROM pg_stat_activity WHERE client_port IS NOT NULL")) {
                while (rows.next()) {
                    ports.add(rows.getInt(1));
                }
            }
            return ports;
        });
    }

    /** An online, consistent copy of a running cluster (base backup with the WAL it needs). */
    public void backup(Cluster cluster, Path target) {
        Commands.check(host.asClusterUser(List.of(host.bin(cluster.version(), "pg_basebackup").toString(),
                "-h", cluster.socketDir().toString(), "-p", String.valueOf(cluster.port()), "-U", "postgres",
                "-D", target.toString(), "-X", "stream", "-c", "fast", "--no-manifest")), LIMIT);
    }

    /** The same for a stopped cluster, from its control file. */
    public ClusterStats.Redo redo(String version, Path data) {
        String control = Commands.check(host.asClusterUser(List.of(host.bin(version, "pg_controldata").toString(),
                data.toString())), LIMIT);
        String file = History.redoFile(control).orElseThrow(() -> new IllegalStateException(
                "pg_controldata gave no REDO WAL file for " + data));
        return new ClusterStats.Redo(file, History.redoLsn(control).orElse(null));
    }

    /** A copy of a stopped cluster (or a checkpoint) at {@code to}, which must not exist (see {@link DataDirCopy}). */
    public void copy(Path from, Path to) throws IOException {
        DataDirCopy.copy(from, to, LIMIT);
    }

    /** A directory owned by the clusters' OS user and closed to everyone else. */
    public Path privateDir(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        host.giveToClusterUser(dir);
        return dir;
    }

    private void awaitReady(Cluster cluster, Path data, Path log, Duration limit) throws IOException {
        long deadline = System.nanoTime() + limit.toNanos();
        Path pidFile = data.resolve("postmaster.pid");
        while (System.nanoTime() < deadline) {
            if (!cluster.process().isAlive()) {
                throw new IOException("postgres exited at start: " + tail(log));
            }
            if (ready(pidFile, cluster.pid())) {
                return;
            }
            sleepMillis(1);
        }
        stop(cluster);
        throw new IOException("postgres was not ready after " + limit.toSeconds() + " s: " + tail(log));
    }

    // Line 8 of postmaster.pid reads "ready" once connections are accepted: pg_ctl's own test.
    private static boolean ready(Path pidFile, long pid) {
        try {
            var lines = Files.readAllLines(pidFile);
            return lines.size() >= 8 && lines.getFirst().strip().equals(String.valueOf(pid))
                    && lines.get(7).strip().equals("ready");
        } catch (IOException | RuntimeException notYet) {
            return false;
        }
    }

    /** The template data directory of a version, made (once, ~1 s) if missing. */
    public Path prepare(String version) throws IOException {
        Path template = root.resolve("templates").resolve(version + "-" + TEMPLATE_REVISION);
        if (Files.exists(template.resolve("hearth-template-complete"))) {
            return template;
        }
        synchronized (this) {
            if (Files.exists(template.resolve("hearth-template-complete"))) {
                return template;
            }
            privateDir(template.getParent());
            Path building = template.resolveSibling(template.getFileName() + ".building");
            Disk.deleteTree(building);
            Disk.deleteTree(template);
            Commands.check(host.asClusterUser(List.of(host.bin(version, "initdb").toString(), "-D", building.toString(),
                    "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8",
                    "--locale=C.UTF-8", "--no-instructions")), LIMIT);
            single(version, building, "postgres", List.of(
                    "CREATE ROLE " + TEMPLATE_OWNER + " LOGIN CREATEDB;",
                    "CREATE DATABASE " + TEMPLATE_DB + " OWNER " + TEMPLATE_OWNER + ";",
                    "CREATE ROLE pgbouncer LOGIN PASSWORD " + literal(Scram.verifier(poolerPassword)) + ";"));
            // pgbouncer looks passwords up in the database a client asks for, through this function.
            single(version, building, TEMPLATE_DB, List.of(
                    "CREATE SCHEMA pgbouncer AUTHORIZATION pgbouncer;",
                    "CREATE FUNCTION pgbouncer.user_lookup(i_username text, OUT uname text, OUT phash text) "
                            + "RETURNS record AS $$ SELECT rolname, CASE WHEN rolvaliduntil < now() THEN NULL "
                            + "ELSE rolpassword END FROM pg_authid WHERE rolname = i_username AND rolcanlogin "
                            + "AND NOT rolsuper $$ LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog;",
                    "REVOKE ALL ON FUNCTION pgbouncer.user_lookup(text) FROM public;",
                    "GRANT EXECUTE ON FUNCTION pgbouncer.user_lookup(text) TO pgbouncer;"));
            Files.writeString(building.resolve("hearth-template-complete"), "");
            Files.move(building, template, StandardCopyOption.ATOMIC_MOVE);
            return template;
        }
    }

    /** Statements run one per line by a single-user backend on a stopped cluster; any error fails. */
    private void single(String version, Path data, String database, List<String> statements) {
        var command = new ArrayList<>(List.of(host.bin(version, "postgres").toString(), "--single",
                "-c", "exit_on_error=on", "-c", "log_min_messages=error", "-D", data.toString(), database));
        String input = String.join("\n", statements) + "\n";
        var result = Commands.run(host.asClusterUser(command), input, LIMIT);
        if (!result.ok() && result.stderr().contains("lock file \"postmaster.pid\" already exists")
                && Postmasters.leftoverEnded(data)) {
            // Callers hold the database's lock and it is asleep, so the holder is left over from a
            // Hearth that was killed (say, its own --single): once that ends, the data directory is free.
            result = Commands.run(host.asClusterUser(command), input, LIMIT);
        }
        if (!result.ok()) {
            throw new Commands.Failure("postgres --single failed (exit " + result.exitCode() + "): "
                    + result.stderr().strip());
        }
    }

    private static String tail(Path log) {
        try {
            var lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for postgres", e);
        }
    }

    static String ident(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    static String literal(String value) {
        return "'" + value.replace("'", "''") + "'";
    }
}
