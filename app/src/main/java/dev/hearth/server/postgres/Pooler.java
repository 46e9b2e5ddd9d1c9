package dev.hearth.server.postgres;

import dev.hearth.server.process.Commands;
import dev.hearth.server.process.Signals;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one pgbouncer in front of every database ({@code pooler_uri}). Its {@code [databases]} entries
 * name each database by its id and point at that database's public port (on the node that runs
 * it), so that a pooled connection goes through Hearth's proxy and wakes a sleeping database like
 * any other. Passwords
 * are looked up in the cluster itself (auth_query), so one the user sets in SQL works at once.
 * Started as the clusters' OS user; restarted if it dies.
 */
public final class Pooler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Pooler.class);

    /**
     * One database behind the pooler: where its port is (this host's for a database this node runs,
     * the node's that runs it otherwise) and its name inside the cluster.
     */
    public record Entry(String host, int port, String dbName) {
        /** A database this node runs. */
        public static Entry here(int port, String dbName) {
            return new Entry("127.0.0.1", port, dbName);
        }
    }

    private final PostgresHost host;
    private final Path dir;
    private final String listenHost;
    private final List<String> alsoListen;
    private final int port;
    private final Map<String, Entry> entries = new TreeMap<>();
    private volatile Process process;
    private volatile boolean closing;

    private Pooler(PostgresHost host, Path dir, String listenHost, List<String> alsoListen, int port) {
        this.host = host;
        this.dir = dir;
        this.listenHost = listenHost;
        this.alsoListen = List.copyOf(alsoListen);
        this.port = port;
    }

    /**
     * Writes the configuration and starts pgbouncer on {@code port} of {@code listenHost} and of
     * {@code alsoListen} (the address computers reach it at). A pgbouncer left running by an earlier
     * Hearth (killed before it could stop it) is stopped first: it holds the port.
     */
    public static Pooler start(PostgresHost host, Path dir, String listenHost, List<String> alsoListen, int port,
                               Certificates certs, Path caCopy, String password, Map<String, Entry> databases)
            throws IOException {
        var pooler = new Pooler(host, dir, listenHost, alsoListen, port);
        pooler.entries.putAll(databases);
        pooler.stopLeftover();
        pooler.writeConfig(certs, caCopy, password);
        pooler.launch();
        return pooler;
    }

    public int port() {
        return port;
    }

    /**
     * Holds a database's pool (pgbouncer's PAUSE): waits, at most {@code limit}, until its server
     * connections are released and closed; clients' new queries and logins wait in pgbouncer
     * meanwhile instead of failing on a server connection that a sleep ends. Answers whether it did.
     */
    public boolean pause(String databaseId, Duration limit) {
        return console("PAUSE " + databaseId, limit);
    }

    /** Lets a paused pool go on (pgbouncer's RESUME); its next server connection wakes the database. */
    public void resume(String databaseId) {
        console("RESUME " + databaseId, Duration.ofSeconds(10));
    }

    /** Runs a command on pgbouncer's admin console; one still waiting after {@code limit} is given up. */
    private boolean console(String command, Duration limit) {
        String conninfo = "host=" + dir.resolve("run") + " port=" + port + " user=pgbouncer dbname=pgbouncer"
                + " passfile=" + dir.resolve("console.pgpass");
        try {
            var result = Commands.run(List.of(host.bin(host.defaultVersion(), "psql").toString(), "-X", "-q",
                    conninfo, "-c", command), limit);
            if (!result.ok()) {
                LOG.warn("pgbouncer {}: {}", command, result.stderr().strip());
            }
            return result.ok();
        } catch (Commands.Failure e) {
            LOG.info("pgbouncer {}: {}; going on", command, e.getMessage());
            return false;
        }
    }

    public synchronized void put(String databaseId, Entry entry) {
        if (entry.equals(entries.put(databaseId, entry))) {
            return;
        }
        reload();
    }

    public synchronized void remove(String databaseId) {
        if (entries.remove(databaseId) != null) {
            reload();
        }
    }

    private void reload() {
        try {
            writeDatabases();
            var p = process;
            if (p != null && p.isAlive()) {
                Signals.send(p.pid(), Signals.SIGHUP);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write pgbouncer's databases", e);
        }
    }

    private void writeConfig(Certificates certs, Path caCopy, String password) throws IOException {
        Files.createDirectories(dir.resolve("run"));
        Files.setPosixFilePermissions(dir.resolve("run"), PosixFilePermissions.fromString("rwx------"));
        host.giveToClusterUser(dir.resolve("run"));
        Files.writeString(dir.resolve("pgbouncer.ini"), """
                ; Written by Hearth at every start.
                [databases]
                %%include %s

                [pgbouncer]
                listen_addr = %s
                listen_port = %d
                unix_socket_dir = %s
                pidfile = %s
                auth_type = hba
                auth_hba_file = %s
                auth_file = %s
                auth_user = pgbouncer
                ; Hearth pauses a database's pool around a requested sleep, over the Unix socket.
                admin_users = pgbouncer
                auth_query = SELECT uname, phash FROM pgbouncer.user_lookup($1)
                pool_mode = transaction
                ; Below any auto-sleep delay worth having: idle server connections must not keep databases awake.
                server_idle_timeout = 10
                ; A server login cut short (a cluster stopped or crashed under it) turns the pool's next clients
                ; away until the next try (check_fast_fail): 1 s, not the default 15 s.
                server_login_retry = 1
                max_client_conn = 2000
                default_pool_size = 20
                ignore_startup_parameters = extra_float_digits
                client_tls_sslmode = require
                client_tls_cert_file = %s
                client_tls_key_file = %s
                client_tls_protocols = tlsv1.2,tlsv1.3
                server_tls_sslmode = verify-full
                server_tls_ca_file = %s
                """.formatted(dir.resolve("databases.ini"), listenAddresses(), port, dir.resolve("run"),
                dir.resolve("run/pgbouncer.pid"), dir.resolve("hba.conf"), dir.resolve("userlist.txt"),
                certs.serverCertificate(), certs.serverKey(), caCopy));
        Files.writeString(dir.resolve("hba.conf"), """
                local   pgbouncer   pgbouncer                   scram-sha-256
                hostssl all         pgbouncer   0.0.0.0/0       reject
                hostssl all         all         0.0.0.0/0       scram-sha-256
                hostssl all         all         ::/0            scram-sha-256
                """);
        Path users = dir.resolve("userlist.txt");
        Files.deleteIfExists(users);
        Files.createFile(users, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(users, "\"pgbouncer\" \"" + password + "\"\n");
        host.giveToClusterUser(users);
        Path passfile = dir.resolve("console.pgpass");
        Files.deleteIfExists(passfile);
        Files.createFile(passfile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(passfile, "*:*:*:pgbouncer:" + password + "\n");
        writeDatabases();
    }

    private void writeDatabases() throws IOException {
        var text = new StringBuilder("; Written by Hearth: one line per database, named by its id.\n");
        entries.forEach((id, e) -> text.append(id).append(" = host=").append(e.host()).append(" port=").append(e.port())
                .append(" dbname=").append(e.dbName()).append('\n'));
        Path tmp = dir.resolve("databases.ini.tmp");
        Files.writeString(tmp, text);
        Files.move(tmp, dir.resolve("databases.ini"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    private synchronized void launch() throws IOException {
        var command = host.asClusterUser(List.of("/usr/sbin/pgbouncer", dir.resolve("pgbouncer.ini").toString()));
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("pgbouncer.log").toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        awaitListening();
        var started = process;
        started.onExit().thenRun(() -> restartAfter(started));
    }

    private void awaitListening() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("pgbouncer exited at start; see " + dir.resolve("pgbouncer.log"));
            }
            try (var s = new Socket()) {
                s.connect(new InetSocketAddress(connectHost(), port), 200);
                return;
            } catch (IOException notYet) {
                sleep(5);
            }
        }
        throw new IOException("pgbouncer did not listen on port " + port + "; see " + dir.resolve("pgbouncer.log"));
    }

    private String listenAddresses() {
        var all = new ArrayList<String>();
        all.add(listenHost);
        alsoListen.stream().filter(a -> !a.equals(listenHost)).forEach(all::add);
        return String.join(",", all);
    }

    private String connectHost() {
        return listenHost.equals("0.0.0.0") || listenHost.equals("*") ? "127.0.0.1" : listenHost;
    }

    private void restartAfter(Process died) {
        if (closing || died != process) {
            return;
        }
        LOG.warn("pgbouncer exited (code {}); starting it again", died.exitValue());
        sleep(1000);
        try {
            if (!closing) {
                launch();
            }
        } catch (IOException e) {
            LOG.error("pgbouncer could not be started again; pooler_uri connections fail", e);
        }
    }

    private void stopLeftover() {
        Path pidFile = dir.resolve("run/pgbouncer.pid");
        try {
            if (Files.exists(pidFile)) {
                long pid = Long.parseLong(Files.readString(pidFile).strip());
                ProcessHandle.of(pid).filter(p -> p.info().command().map(c -> c.endsWith("pgbouncer")).orElse(false))
                        .ifPresent(old -> {
                            LOG.info("stopping the pgbouncer an earlier Hearth left running (pid {})", pid);
                            Signals.send(pid, Signals.SIGINT);
                            old.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(t -> null).join();
                        });
                Files.deleteIfExists(pidFile);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not check for a leftover pgbouncer: {}", e.toString());
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closing = true;
        var p = process;
        if (p != null && p.isAlive()) {
            Signals.send(p.pid(), Signals.SIGINT);
            p.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(t -> null).join();
        }
    }
}
