package dev.hearth.server.sandbox.runsc;

import dev.hearth.api.Json;
import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.Exec;
import dev.hearth.server.sandbox.SandboxRuntime;
import dev.hearth.server.sandbox.SandboxSpec;
import dev.hearth.server.sandbox.Slot;
import dev.hearth.server.sandbox.Terminal;
import dev.hearth.server.store.Ids;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computers as gVisor sandboxes driven through the runsc command line: one network namespace and
 * veth pair per computer, a generated OCI bundle over a shared read-only image rootfs, the
 * writable layer in a per-computer overlay directory, /data bind-mounted from the host.
 */
public final class RunscRuntime implements SandboxRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(RunscRuntime.class);
    private static final Duration QUICK = Runsc.QUICK;
    private static final Duration SLOW = Runsc.SLOW;

    private final String runsc;
    private final Path root;
    private final Runsc cli;
    private final Networks networks;
    private final Boot boot;
    private final RunningExecs running = new RunningExecs();
    private final KillTree killTree;
    private final Execs execs;

    public RunscRuntime(String runsc, Path root) {
        this.runsc = runsc;
        this.root = root;
        this.cli = new Runsc(runsc, root);
        this.networks = new Networks(root.resolveSibling("networks"));
        this.boot = new Boot(cli, networks);
        this.killTree = new KillTree(cli);
        this.execs = new Execs(cli, running, killTree);
    }

    /** Is runsc usable here: installed, and are we root (namespaces, cgroups)? */
    public static Optional<String> unavailableReason(String runsc) {
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("computers need hearth serve to run as root (network namespaces, cgroups)");
        }
        try {
            Commands.check(List.of(runsc, "--version"), QUICK);
            return Optional.empty();
        } catch (Commands.Failure e) {
            return Optional.of("runsc is not usable: " + e.getMessage() + " (./run-tests installs it)");
        }
    }

    @Override
    public void prepareNetwork(Slot slot) {
        networks.prepare(slot);
    }

    @Override
    public void removeNetwork(Slot slot) {
        networks.remove(slot);
    }

    @Override
    public void start(SandboxSpec spec, Path stateDir) {
        boot.start(spec, stateDir);
    }

    @Override
    public void restore(SandboxSpec spec, Path stateDir, Path imageDir) {
        boot.restore(spec, stateDir, imageDir);
    }

    @Override
    public void checkpoint(String sandboxId, Path imageDir, boolean leaveRunning) {
        cli.checkpoint(sandboxId, imageDir, leaveRunning);
    }

    @Override
    public void pause(String sandboxId) {
        cli.pause(sandboxId);
    }

    @Override
    public void resume(String sandboxId) {
        cli.resume(sandboxId);
    }

    @Override
    public boolean busy(String sandboxId) {
        return running.busy(sandboxId);
    }

    @Override
    public void endExecs(String sandboxId, Duration limit) {
        running.end(sandboxId, limit);
    }

    @Override
    public Exec.Result exec(String sandboxId, Exec.Request request, Path scratchDir, int outputCap,
                            BooleanSupplier callerPresent) {
        return execs.exec(sandboxId, request, scratchDir, outputCap, callerPresent);
    }

    @Override
    public Exec.Result execStreaming(String sandboxId, Exec.Request request, Path scratchDir, Exec.Sink sink,
                                     BooleanSupplier callerPresent) {
        return execs.execStreaming(sandboxId, request, scratchDir, sink, callerPresent);
    }

    @Override
    public Terminal execTerminal(String sandboxId, Exec.Request request, Path scratchDir, int columns, int rows) {
        String id = Ids.next();
        // A Unix socket path has at most 107 bytes: keep it short, outside the data directory.
        Path socket = Path.of("/tmp", "hearth-tty-" + id.substring(12) + ".sock");
        Path pidFile = scratchDir.resolve("tty-" + id + ".pid");
        int listening = -1;
        try {
            Files.createDirectories(scratchDir);
            var env = new LinkedHashMap<>(request.env());
            env.putIfAbsent("TERM", "xterm-256color");
            String envFile = "/tmp/.hearth-env-" + id;
            writeEnvironment(sandboxId, envFile, env, scratchDir);
            // This runsc loses --process when it re-executes itself for --detach, so the terminal's
            // command goes in argv: a wrapper that sources the environment file (secrets stay out of argv).
            var command = new ArrayList<>(List.of(runsc, "--root", root.toString(), "exec", "--detach",
                    "--console-socket", socket.toString(), "--internal-pid-file", pidFile.toString(),
                    "--cwd", request.cwd(), sandboxId, "/.hearth/busybox", "sh", "-c",
                    ". " + envFile + "; /.hearth/busybox rm -f " + envFile + "; exec \"$@\"", "hearth-terminal"));
            command.addAll(request.command());
            listening = Posix.listen(socket.toString());
            Path out = scratchDir.resolve("tty-" + id + ".out");
            var starter = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            // runsc exec --detach may exit 128 even when the terminal works (it races its own pid file),
            // so the descriptor decides; if none came, runsc's exit wakes the accept.
            int listen = listening;
            var received = new AtomicBoolean();
            Pipes.execute(() -> {
                try {
                    starter.waitFor();
                    Thread.sleep(2000);
                } catch (InterruptedException ignored) {
                    // shut down below either way
                }
                if (!received.get()) {
                    Posix.shutdown(listen);
                }
            });
            int master = Posix.receiveDescriptor(listening);
            received.set(master >= 0);
            if (master < 0) {
                throw new Commands.Failure("runsc exec on a terminal failed: " + Files.readString(out).strip());
            }
            for (int i = 0; i < 250 && (!Files.exists(pidFile) || Files.size(pidFile) == 0); i++) {
                Thread.sleep(20);
            }
            Files.deleteIfExists(out);
            Posix.makeBlocking(master);
            Posix.resize(master, columns, rows);
            String pid = Files.readString(pidFile).strip();
            var waiter = new ProcessBuilder(runsc, "--root", root.toString(), "wait", "--pid", pid, sandboxId)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            var terminal = new RunscTerminal(sandboxId, master, pid, waiter, pidFile);
            terminal.untrack = running.track(sandboxId, terminal::kill);
            return terminal;
        } catch (IOException e) {
            Scratch.deleteQuietly(pidFile);
            throw new Commands.Failure("cannot start a terminal: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Commands.Failure("interrupted while starting a terminal");
        } finally {
            if (listening >= 0) {
                Posix.close(listening);
            }
            try {
                Files.deleteIfExists(socket);
            } catch (IOException ignored) {
                // /tmp is cleaned anyway
            }
        }
    }

    /** Writes {@code export NAME='value'} lines to a 0600 file inside the sandbox, through stdin of an exec. */
    private void writeEnvironment(String sandboxId, String envFile, Map<String, String> env, Path scratchDir) {
        var exports = new StringBuilder();
        env.forEach((k, v) -> exports.append("export ").append(k).append("='").append(v.replace("'", "'\\''")).append("'\n"));
        var result = execs.exec(sandboxId, new Exec.Request(List.of("/.hearth/busybox", "sh", "-c", "umask 077; cat > " + envFile),
                Map.of("PATH", "/bin"), "/", exports.toString().getBytes(StandardCharsets.UTF_8),
                Duration.ofSeconds(30)), scratchDir, 4096, () -> true);
        if (result.exitCode() != 0) {
            throw new Commands.Failure("cannot prepare the terminal's environment: "
                    + new String(result.stderr(), StandardCharsets.UTF_8));
        }
    }

    /** A terminal exec: the pty master from runsc, and runsc wait for the exit status. */
    private final class RunscTerminal implements Terminal {
        private final String sandboxId;
        private final int master;
        private final String pid;
        private final Process waiter;
        private final Path pidFile;
        private volatile boolean closed;
        private volatile Runnable untrack = () -> { };

        RunscTerminal(String sandboxId, int master, String pid, Process waiter, Path pidFile) {
            this.sandboxId = sandboxId;
            this.master = master;
            this.pid = pid;
            this.waiter = waiter;
            this.pidFile = pidFile;
        }

        @Override
        public int read(byte[] buffer) {
            return closed ? -1 : Posix.read(master, buffer);
        }

        @Override
        public void write(byte[] input) throws IOException {
            Posix.write(master, input);
        }

        @Override
        public void resize(int columns, int rows) throws IOException {
            Posix.resize(master, columns, rows);
        }

        /** runsc wait prints {"exitStatus": N}: the exit code, or -1 when a signal ended it (reported as 137). */
        @Override
        public int waitFor() throws InterruptedException {
            try {
                String text = new String(waiter.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                waiter.waitFor();
                int status = Json.mapper().readTree(text).path("exitStatus").asInt(-1);
                return status >= 0 ? status : 137;
            } catch (IOException e) {
                return -1;
            }
        }

        @Override
        public void kill() {
            killTree.tree(sandboxId, pid);
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                Posix.close(master);
                waiter.destroy();
                Scratch.deleteQuietly(pidFile);
                untrack.run();
            }
        }
    }

    @Override
    public Optional<String> state(String sandboxId) {
        return cli.state(sandboxId);
    }

    @Override
    public void delete(String sandboxId) {
        cli.delete(sandboxId);
    }

    @Override
    public Map<String, String> sandboxes() {
        return cli.list();
    }

    @Override
    public int pruneCgroups(Set<String> keep) {
        return Cgroups.prune(keep);
    }

    @Override
    public Set<Slot> networks() {
        return networks.slots();
    }
}
