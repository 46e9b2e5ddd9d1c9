package dev.hearth.server.postgres;

import dev.hearth.server.process.Commands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What this host offers for running PostgreSQL: the installed major versions (Debian puts each
 * under /usr/lib/postgresql/N/bin), pgbouncer, and the OS user clusters run as. PostgreSQL refuses
 * to run as root, so a Hearth running as root runs them as the {@code postgres} user of the Debian
 * package, through setpriv (no PAM session and no extra parent process, unlike runuser).
 */
public final class PostgresHost {
    private static final Path VERSIONS = Path.of("/usr/lib/postgresql");

    private final SortedMap<String, Path> binaries;
    private final Optional<String> osUser;

    private PostgresHost(SortedMap<String, Path> binaries, Optional<String> osUser) {
        this.binaries = binaries;
        this.osUser = osUser;
    }

    /** The host as found, or why databases cannot run here. */
    public static PostgresHost probe() {
        var found = new TreeMap<String, Path>((a, b) -> Integer.compare(Integer.parseInt(a), Integer.parseInt(b)));
        if (Files.isDirectory(VERSIONS)) {
            try (Stream<Path> dirs = Files.list(VERSIONS)) {
                dirs.filter(d -> d.getFileName().toString().matches("\\d+"))
                        .filter(d -> Files.isExecutable(d.resolve("bin/postgres")))
                        .forEach(d -> found.put(d.getFileName().toString(), d.resolve("bin")));
            } catch (IOException e) {
                throw new IllegalStateException("cannot list " + VERSIONS, e);
            }
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        return new PostgresHost(found, root ? Optional.of("postgres") : Optional.empty());
    }

    public Optional<String> unavailableReason() {
        if (binaries.isEmpty()) {
            return Optional.of("PostgreSQL is not installed (no " + VERSIONS + "/N/bin/postgres); run scripts/install-packages");
        }
        if (!Files.isExecutable(Path.of("/usr/sbin/pgbouncer"))) {
            return Optional.of("pgbouncer is not installed; run scripts/install-packages");
        }
        if (osUser.isPresent() && Commands.run(List.of("id", "-u", osUser.get()), Duration.ofSeconds(5)).exitCode() != 0) {
            return Optional.of("Hearth runs as root and there is no '" + osUser.get() + "' user to run PostgreSQL as");
        }
        return Optional.empty();
    }

    /** The newest installed major version: what a database gets unless it asks. */
    public String defaultVersion() {
        return binaries.lastKey();
    }

    public Set<String> versions() {
        return binaries.keySet();
    }

    public Path bin(String version, String program) {
        return binaries.get(version).resolve(program);
    }

    /** Where {@code version}'s extensions are installed ({@code pg_config --sharedir}; Debian's /usr/share/postgresql/N). */
    public Path shareDir(String version) {
        var found = Commands.run(List.of(bin(version, "pg_config").toString(), "--sharedir"), Duration.ofSeconds(5));
        return found.ok() ? Path.of(found.stdout().strip()) : Path.of("/usr/share/postgresql", version);
    }

    /** {@code command} run as the clusters' OS user. */
    public List<String> asClusterUser(List<String> command) {
        if (osUser.isEmpty()) {
            return command;
        }
        var wrapped = new ArrayList<>(List.of("setpriv", "--reuid=" + osUser.get(), "--regid=" + osUser.get(),
                "--init-groups", "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** Hands a file or directory Hearth made to the clusters' OS user (nothing when that is Hearth's own). */
    public void giveToClusterUser(Path path) throws IOException {
        if (osUser.isEmpty()) {
            return;
        }
        var users = path.getFileSystem().getUserPrincipalLookupService();
        UserPrincipal user = users.lookupPrincipalByName(osUser.get());
        GroupPrincipal group = users.lookupPrincipalByGroupName(osUser.get());
        var view = Files.getFileAttributeView(path, PosixFileAttributeView.class);
        view.setOwner(user);
        view.setGroup(group);
    }

    /** Whether clusters run as another OS user than Hearth, who must then be able to reach their files. */
    public boolean separateUser() {
        return osUser.isPresent();
    }

    /** Whether the clusters' OS user can reach {@code dir} (every parent must let it pass). */
    public boolean reachable(Path dir) {
        if (osUser.isEmpty()) {
            return true;
        }
        return Commands.run(asClusterUser(List.of("test", "-x", dir.toString())), Duration.ofSeconds(5)).ok();
    }
}
