package dev.hearth.teardown;

import static dev.hearth.support.HearthServerExtension.assumeComputers;
import static dev.hearth.support.HearthServerExtension.assumeDatabases;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.cli.Cli;
import dev.hearth.server.network.ComputerNetwork;
import dev.hearth.server.network.DirectPorts;
import dev.hearth.server.sandbox.runsc.RunscRuntime;
import dev.hearth.support.ChildRun;
import dev.hearth.support.ChildServer;
import dev.hearth.support.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hearth admin teardown} after a server with a computer and a database was killed with
 * SIGKILL: nothing of the data directory is left on the host (no sandbox, network namespace,
 * cgroup, nftables table, mount or process), and the directory can then be deleted. It refuses a
 * directory a server uses.
 */
class TeardownTest {

    @BeforeAll
    static void needsComputersAndDatabases() {
        assumeComputers();
        assumeDatabases();
    }

    @Test
    void aKilledServersDataDirectoryIsTakenDownToNothing(@TempDir Path tmp) throws Exception {
        // The clusters' OS user must pass through the test's directory.
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Path dir = tmp.resolve("data");
        ChildServer.startAndKill(dir, ChildServer.freePort(), "everything");
        var namespaces = namespaces(dir);
        assertEquals(1, namespaces.size(), namespaces::toString);
        var before = leftovers(dir, namespaces);
        assertTrue(before.contains("network namespace " + namespaces.getFirst()), before::toString);
        assertTrue(before.stream().anyMatch(l -> l.startsWith("process ") && l.contains("pgbouncer")), before::toString);
        try {
            var run = cli("admin", "teardown", "--data-dir", dir.toString(), "--delete");
            assertEquals(0, run.code(), run.err());
            assertTrue(run.out().startsWith("stopped 1 sandboxes"), run.out());
            assertEquals(List.of(), leftovers(dir, namespaces));
            assertFalse(Files.exists(dir), "--delete removed the directory");
        } finally {
            if (Files.exists(dir)) {
                TestServer.tearDown(dir);
            }
        }
    }

    @Test
    void aStartingServerRemovesTheTablesOfOneThatNoLongerRuns(@TempDir Path tmp) throws Exception {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Path dead = tmp.resolve("dead");
        ChildServer.startAndKill(dead, ChildServer.freePort(), "network");
        String table = "inet " + ComputerNetwork.tableFor(dead);
        try {
            assertEquals(0, run("nft list table " + table).exit(), "the killed server's table is left");
            try (var server = TestServer.startOn(tmp.resolve("alive"), 0, c -> c)) {
                assertTrue(run("nft list table " + table).exit() != 0,
                        "its rules, keyed by veth names, would act on the new server's computers on the same slots");
                assertEquals(0, run("nft list table inet " + ComputerNetwork.tableFor(server.dataDir)).exit());
            }
        } finally {
            TestServer.tearDown(dead);
        }
    }

    @Test
    void aDirectoryInUseIsRefused(@TempDir Path tmp) throws Exception {
        try (var server = TestServer.startOn(tmp.resolve("data"), 0, c -> c)) {
            var run = cli("admin", "teardown", "--data-dir", server.dataDir.toString());
            assertEquals(1, run.code());
            assertTrue(run.err().contains("a hearth serve is using"), run.err());
        }
    }

    /** What of the directory is on the host: one line per thing. */
    private static List<String> leftovers(Path dir, List<String> namespaces) throws Exception {
        String path = dir.toAbsolutePath().normalize().toString();
        var found = new ArrayList<String>();
        Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().map(l -> l.split(" ")[4])
                .filter(m -> m.startsWith(path + "/")).forEach(m -> found.add("mount " + m));
        long self = ProcessHandle.current().pid();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(p -> !p.getFileName().toString().equals(String.valueOf(self)))
                    .map(TeardownTest::commandLine).filter(cmd -> cmd.contains(path + "/"))
                    .forEach(cmd -> found.add("process " + cmd));
        }
        for (String table : List.of("inet " + ComputerNetwork.tableFor(dir), "ip " + DirectPorts.tableFor(dir))) {
            if (run("nft list table " + table).exit() == 0) {
                found.add("table " + table);
            }
        }
        try (var controllers = Files.list(Path.of("/sys/fs/cgroup"))) {
            controllers.map(c -> c.resolve(RunscRuntime.cgroupParent(dir.resolve("runsc")))).filter(Files::isDirectory)
                    .forEach(c -> found.add("cgroup " + c));
        }
        var listed = run("ip netns list").output().lines().map(l -> l.split(" ")[0]).toList();
        namespaces.stream().filter(listed::contains).forEach(n -> found.add("network namespace " + n));
        return found;
    }

    /** The network namespaces of the directory's computers, from its markers (one file per slot). */
    private static List<String> namespaces(Path dir) throws Exception {
        try (var markers = Files.list(dir.resolve("networks"))) {
            return markers.map(m -> "hearth-" + m.getFileName()).toList();
        }
    }

    private static String commandLine(Path proc) {
        try {
            return new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (Exception gone) {
            return "";
        }
    }

    private static ChildRun run(String command) throws Exception {
        var p = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        return new ChildRun(p.waitFor(), output);
    }

    private record Run(int code, String out, String err) {
    }

    private static Run cli(String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int code = Cli.run(args, new Cli.Context(Map.of(), System.in, new PrintStream(out, true),
                new PrintStream(err, true), Path.of(System.getProperty("java.io.tmpdir")).resolve("teardown-cli")));
        return new Run(code, out.toString(), err.toString());
    }
}
