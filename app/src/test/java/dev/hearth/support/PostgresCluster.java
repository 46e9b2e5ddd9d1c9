package dev.hearth.support;

import dev.hearth.fs.Disk;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL cluster from the Debian package: initdb into a temp directory, postgres on
 * a free loopback port, trust auth, removed on close. Run as the postgres OS user when the tests
 * run as root, because postgres refuses root.
 */
public final class PostgresCluster implements AutoCloseable {
    private final Path dir;
    private final Path bin;
    private final int port;
    private final Process process;

    private PostgresCluster(Path dir, Path bin, int port, Process process) {
        this.dir = dir;
        this.bin = bin;
        this.port = port;
        this.process = process;
    }

    public static PostgresCluster start() throws Exception {
        return start(Optional.empty(), "");
    }

    /**
     * A cluster that also listens on {@code hostAddress} (the host side of test hosts' network),
     * trusting connections from {@code network} (a CIDR).
     */
    public static PostgresCluster startOn(String hostAddress, String network) throws Exception {
        return start(Optional.of(hostAddress), network);
    }

    private static PostgresCluster start(Optional<String> hostAddress, String network) throws Exception {
        Path bin = binDir();
        Path dir = Files.createTempDirectory("hearth-pg");
        if (isRoot()) {
            run(List.of("chown", "postgres:postgres", dir.toString()));
        }
        Path data = dir.resolve("data");
        run(asPostgres(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "hearth",
                "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "-N")));
        int port = freePort();
        String listen = "127.0.0.1";
        if (hostAddress.isPresent()) {
            listen += "," + hostAddress.get();
            Files.writeString(data.resolve("pg_hba.conf"), "host all all " + network + " trust\n",
                    StandardOpenOption.APPEND);
        }
        var process = new ProcessBuilder(asPostgres(List.of(bin.resolve("postgres").toString(), "-D", data.toString(),
                "-c", "port=" + port, "-c", "listen_addresses=" + listen, "-c", "unix_socket_directories=" + dir,
                "-c", "fsync=off", "-c", "shared_buffers=16MB", "-c", "max_connections=60")))
                .redirectErrorStream(true).redirectOutput(dir.resolve("postgres.log").toFile()).start();
        var cluster = new PostgresCluster(dir, bin, port, process);
        cluster.awaitReady();
        return cluster;
    }

    public int port() {
        return port;
    }

    /** A new, empty database on this cluster, as a Hearth --store URL. */
    public String createDatabase(String name) throws SQLException {
        try (var c = DriverManager.getConnection(jdbc("postgres"), "hearth", "")) {
            c.createStatement().execute("CREATE DATABASE " + name);
        }
        return "postgresql://hearth@127.0.0.1:" + port + "/" + name;
    }

    public String jdbc(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    public Path bin() {
        return bin;
    }

    private void awaitReady() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (var c = DriverManager.getConnection(jdbc("postgres"), "hearth", "")) {
                return;
            } catch (SQLException notYet) {
                if (System.nanoTime() > deadline || !process.isAlive()) {
                    throw new IllegalStateException("postgres did not start: " + Files.readString(dir.resolve("postgres.log")));
                }
                Thread.sleep(50);
            }
        }
    }

    private static Path binDir() throws IOException {
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.max(Comparator.comparingInt(p -> Integer.parseInt(p.getFileName().toString())))
                    .map(p -> p.resolve("bin"))
                    .orElseThrow(() -> new IllegalStateException("no PostgreSQL under /usr/lib/postgresql; run ./run-tests"));
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static List<String> asPostgres(List<String> command) {
        if (!isRoot()) {
            return command;
        }
        var wrapped = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    private static void run(List<String> command) throws Exception {
        var p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
        }
    }

    private static int freePort() throws IOException {
        try (var s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws Exception {
        run(asPostgres(List.of(bin.resolve("pg_ctl").toString(), "stop", "-m", "immediate", "-D",
                dir.resolve("data").toString())));
        process.waitFor(10, TimeUnit.SECONDS);
        Disk.deleteTree(dir);
    }
}
