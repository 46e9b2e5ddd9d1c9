package dev.hearth.server.sandbox.runsc;

import dev.hearth.api.Json;
import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.Exec;
import dev.hearth.server.sandbox.SandboxRuntime;
import dev.hearth.server.sandbox.SandboxSpec;
import dev.hearth.server.sandbox.Slot;
import dev.hearth.server.sandbox.Terminal;
import dev.hearth.server.store.Ids;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
    // Commands running through exec, per sandbox, as the way to kill each: sleep and checkpoints
    // must not leave one running (a restore fails on an exec's host descriptors).
    private final Map<String, Set<Runnable>> execs = new ConcurrentHashMap<>();

    public RunscRuntime(String runsc, Path root) {
        this.runsc = runsc;
        this.root = root;
        this.cli = new Runsc(runsc, root);
        this.networks = new Networks(root.resolveSibling("networks"));
        this.boot = new Boot(cli, networks);
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

    private static final FileAttribute<?> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------"));

    /** Registers a running exec's killer; the answer unregisters it. */
    private Runnable track(String sandboxId, Runnable killer) {
        execs.computeIfAbsent(sandboxId, k -> ConcurrentHashMap.newKeySet()).add(killer);
        return () -> execs.computeIfPresent(sandboxId, (k, set) -> {
            set.remove(killer);
            return set.isEmpty() ? null : set;
        });
    }

    @Override
    public boolean busy(String sandboxId) {
        return execs.containsKey(sandboxId);
    }

    @Override
    public void endExecs(String sandboxId, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        for (int round = 0; execs.containsKey(sandboxId); round++) {
            if (System.nanoTime() > deadline) {
                throw new Commands.Failure("commands started through exec did not end in " + limit);
            }
            if (round % 10 == 0) {
                // Again every second: an exec may have been too young to have written its pid file.
                List.copyOf(execs.getOrDefault(sandboxId, Set.of())).forEach(Runnable::run);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Commands.Failure("interrupted while ending commands");
            }
        }
    }

    private Runnable killer(String sandboxId, Path pidFile) {
        return () -> {
            try {
                kill(sandboxId, pidFile);
            } catch (IOException | RuntimeException e) {
                LOG.debug("killing an exec in {} failed (it may have ended)", sandboxId, e);
            }
        };
    }

    /** A started exec and the files it needs until it ends. */
    private record Started(Process process, Path processFile, Path pidFile) {
        void cleanUp() {
            deleteQuietly(processFile);
            deleteQuietly(pidFile);
        }
    }

    private Started startExec(String sandboxId, Exec.Request request, Path scratchDir) throws IOException {
        Files.createDirectories(scratchDir);
        String id = Ids.next();
        // The environment may hold secrets: it goes in a 0600 file, never on a command line.
        Path processFile = scratchDir.resolve("exec-" + id + ".json");
        // A new file under a fresh id: created 0600 in one step, no temporary file and rename needed.
        try (var channel = Files.newByteChannel(processFile, Set.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE), OWNER_ONLY)) {
            channel.write(ByteBuffer.wrap(Json.mapper().writeValueAsBytes(
                    OciSpec.process(request.command(), request.env(), request.cwd()))));
        }
        Path pidFile = scratchDir.resolve("exec-" + id + ".pid");
        var builder = new ProcessBuilder(runsc, "--root", root.toString(), "exec", "--internal-pid-file",
                pidFile.toString(), "--process", processFile.toString(), sandboxId);
        boolean hasInput = request.stdin() != null && request.stdin().length > 0;
        if (!hasInput) {
            // runsc forwards an open stdin pipe until it closes: no input costs ~9 ms less as /dev/null.
            builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        }
        var process = builder.start();
        if (hasInput) {
            feed(process, request.stdin());
        }
        return new Started(process, processFile, pidFile);
    }

    // How often a JSON exec asks whether its caller is still there.
    private static final long CALLER_POLL_MILLIS = 500;

    /**
     * Waits out the time limit, or until the caller goes away; then kills the process tree. Answers
     * whether it finished in time.
     */
    private boolean await(String sandboxId, Started started, Duration timeout, BooleanSupplier callerPresent)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long left = timeout.toMillis();
        boolean finished = started.process().waitFor(Math.min(left, CALLER_POLL_MILLIS), TimeUnit.MILLISECONDS);
        while (!finished && (left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) > 0
                && callerPresent.getAsBoolean()) {
            finished = started.process().waitFor(Math.min(left, CALLER_POLL_MILLIS), TimeUnit.MILLISECONDS);
        }
        if (!finished) {
            kill(sandboxId, started.pidFile());
            if (!started.process().waitFor(10, TimeUnit.SECONDS)) {
                started.process().destroyForcibly();
            }
        }
        return finished;
    }

    /** What an exec does with its running process: take its output and wait for it. */
    @FunctionalInterface
    private interface Attended {
        Exec.Result attend(Started started, Runnable kill, long startedAt) throws IOException, InterruptedException;
    }

    /** Starts an exec, tracks it (so sleep can end it) while {@code attended} runs, then cleans up. */
    private Exec.Result runExec(String sandboxId, Exec.Request request, Path scratchDir, Attended attended) {
        long t0 = System.nanoTime();
        Started started = null;
        Runnable untrack = () -> { };
        try {
            started = startExec(sandboxId, request, scratchDir);
            Runnable kill = killer(sandboxId, started.pidFile());
            untrack = track(sandboxId, kill);
            return attended.attend(started, kill, t0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Commands.Failure("interrupted while running a command");
        } finally {
            untrack.run();
            if (started != null) {
                started.cleanUp();
            }
        }
    }

    @Override
    public Exec.Result exec(String sandboxId, Exec.Request request, Path scratchDir, int outputCap,
                            BooleanSupplier callerPresent) {
        return runExec(sandboxId, request, scratchDir, (started, kill, t0) -> {
            var out = capture(started.process().getInputStream(), outputCap);
            var err = capture(started.process().getErrorStream(), outputCap);
            boolean finished = await(sandboxId, started, request.timeout(), callerPresent);
            int code = started.process().waitFor();
            out.join();
            err.join();
            return new Exec.Result(code, out.bytes(), err.bytes(), out.truncated() || err.truncated(), !finished,
                    (System.nanoTime() - t0) / 1_000_000);
        });
    }

    @Override
    public Exec.Result execStreaming(String sandboxId, Exec.Request request, Path scratchDir, Exec.Sink sink,
                                     BooleanSupplier callerPresent) {
        return runExec(sandboxId, request, scratchDir, (started, kill, t0) -> {
            var gone = new AtomicBoolean();
            Runnable hangUp = () -> {
                if (gone.compareAndSet(false, true)) {
                    kill.run();
                }
            };
            var out = relay(started.process().getInputStream(), false, sink, hangUp);
            var err = relay(started.process().getErrorStream(), true, sink, hangUp);
            boolean finished = await(sandboxId, started, request.timeout(),
                    () -> !gone.get() && callerPresent.getAsBoolean());
            int code = started.process().waitFor();
            join(out);
            join(err);
            return new Exec.Result(code, new byte[0], new byte[0], false, !finished, (System.nanoTime() - t0) / 1_000_000);
        });
    }

    /** Passes text to the sink as it arrives; when the sink fails, hangs up (kills the command). */
    private static Future<?> relay(InputStream in, boolean stderr, Exec.Sink sink,
                                                       Runnable hangUp) {
        return PIPES.submit(() -> {
            char[] buffer = new char[8192];
            try (var reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                for (int n = reader.read(buffer); n >= 0; n = reader.read(buffer)) {
                    try {
                        sink.output(stderr, new String(buffer, 0, n));
                    } catch (IOException clientGone) {
                        hangUp.run();
                    }
                }
            } catch (IOException ignored) {
                // the pipe closed with the process
            }
        });
    }

    // Stops, then kills, a process and every descendant: runsc kill --pid reaches one process only,
    // and a surviving child would keep the output pipes (and the caller) open.
    private static final String KILL_TREE = """
            t() { echo $1; for c in $(/.hearth/busybox ps -o pid,ppid | /.hearth/busybox awk -v p=$1 '$2==p{print $1}'); do t $c; done; }
            /.hearth/busybox kill -STOP $(t $1) 2>/dev/null; /.hearth/busybox kill -KILL $(t $1) 2>/dev/null; true""";

    private void kill(String sandboxId, Path pidFile) throws IOException {
        if (Files.exists(pidFile)) {
            String pid = Files.readString(pidFile).strip();
            Commands.run(List.of(runsc, "--root", root.toString(), "exec", sandboxId, "/.hearth/busybox", "sh", "-c",
                    KILL_TREE, "kill-tree", pid), QUICK);
            Commands.run(List.of(runsc, "--root", root.toString(), "kill", "--pid", pid, sandboxId, "KILL"), QUICK);
        }
    }

    // Reads and writes on process pipes block; they run on daemon platform threads rather than pinning
    // the virtual-thread carriers, pooled because starting two threads per exec showed in its latency.
    private static final ExecutorService PIPES = Executors
            .newCachedThreadPool(Thread.ofPlatform().daemon().name("exec-pipe-", 0).factory());

    /** Waits for a pipe task; its own failures were handled inside it. */
    private static void join(Future<?> task) throws InterruptedException {
        try {
            task.get();
        } catch (ExecutionException e) {
            throw new UncheckedIOException(new IOException("a pipe reader failed", e.getCause()));
        }
    }

    private static void feed(Process process, byte[] stdin) {
        PIPES.execute(() -> {
            try (var in = process.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin);
                }
            } catch (IOException ignored) {
                // the command exited without reading all of its input; that is its business
            }
        });
    }

    /** Reads a stream to its end on a pipe thread, keeping at most {@code cap} bytes. */
    private static final class Capture {
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private volatile boolean truncated;
        private Future<?> task;

        byte[] bytes() {
            return kept.toByteArray();
        }

        boolean truncated() {
            return truncated;
        }

        void join() throws InterruptedException {
            RunscRuntime.join(task);
        }
    }

    private static Capture capture(InputStream in, int cap) {
        var capture = new Capture();
        capture.task = PIPES.submit(() -> {
            byte[] buffer = new byte[8192];
            try (in) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    int room = cap - capture.kept.size();
                    capture.kept.write(buffer, 0, Math.max(0, Math.min(room, n)));
                    if (n > room) {
                        capture.truncated = true;
                    }
                }
            } catch (IOException ignored) {
                // the stream closed under us: keep what arrived
            }
        });
        return capture;
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
            PIPES.execute(() -> {
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
            terminal.untrack = track(sandboxId, terminal::kill);
            return terminal;
        } catch (IOException e) {
            deleteQuietly(pidFile);
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
        var result = exec(sandboxId, new Exec.Request(List.of("/.hearth/busybox", "sh", "-c", "umask 077; cat > " + envFile),
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
            Commands.run(List.of(runsc, "--root", root.toString(), "exec", sandboxId, "/.hearth/busybox", "sh", "-c",
                    KILL_TREE, "kill-tree", pid), QUICK);
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                Posix.close(master);
                waiter.destroy();
                deleteQuietly(pidFile);
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

    private static void deleteQuietly(Path p) {
        try {
            if (p != null) {
                Files.deleteIfExists(p);
            }
        } catch (IOException ignored) {
            // a leftover scratch file in the computer's own directory is removed with it
        }
    }
}
