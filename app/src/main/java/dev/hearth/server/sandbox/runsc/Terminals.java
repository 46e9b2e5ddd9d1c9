package dev.hearth.server.sandbox.runsc;

import dev.hearth.server.process.Commands;
import dev.hearth.server.process.Descriptors;
import dev.hearth.server.sandbox.Exec;
import dev.hearth.server.sandbox.RunningExecs;
import dev.hearth.server.sandbox.Terminal;
import dev.hearth.server.store.Ids;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Starts commands on a terminal: {@code runsc exec --detach --console-socket} hands the pty master
 * over a Unix socket, and the environment travels in a file inside the sandbox rather than in argv.
 */
final class Terminals {
    private final Runsc runsc;
    private final Execs execs;
    private final RunningExecs running;
    private final KillTree killTree;

    Terminals(Runsc runsc, Execs execs, RunningExecs running, KillTree killTree) {
        this.runsc = runsc;
        this.execs = execs;
        this.running = running;
        this.killTree = killTree;
    }

    /** Where one terminal's socket, pid file and runsc output go, and its environment file in the sandbox. */
    private record TtyFiles(Path socket, Path pidFile, Path out, String envFile) {
        static TtyFiles of(String id, Path scratchDir) {
            // A Unix socket path has at most 107 bytes: keep it short, outside the data directory.
            return new TtyFiles(Path.of("/tmp", "hearth-tty-" + id.substring(12) + ".sock"),
                    scratchDir.resolve("tty-" + id + ".pid"), scratchDir.resolve("tty-" + id + ".out"),
                    "/tmp/.hearth-env-" + id);
        }
    }

    Terminal start(String sandboxId, Exec.Request request, Path scratchDir, int columns, int rows) {
        var tty = TtyFiles.of(Ids.next(), scratchDir);
        int listening = -1;
        try {
            Files.createDirectories(scratchDir);
            var env = new LinkedHashMap<>(request.env());
            env.putIfAbsent("TERM", "xterm-256color");
            writeEnvironment(sandboxId, tty.envFile(), env, scratchDir);
            listening = Posix.listen(tty.socket().toString());
            var starter = new ProcessBuilder(command(sandboxId, request, tty))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectErrorStream(true).redirectOutput(tty.out().toFile()).start();
            int master = receiveMaster(listening, starter, tty.out());
            for (int i = 0; i < 250 && (!Files.exists(tty.pidFile()) || Files.size(tty.pidFile()) == 0); i++) {
                Thread.sleep(20);
            }
            Files.deleteIfExists(tty.out());
            Posix.makeBlocking(master);
            Posix.resize(master, columns, rows);
            return open(sandboxId, master, Files.readString(tty.pidFile()).strip(), tty.pidFile());
        } catch (IOException e) {
            Scratch.deleteQuietly(tty.pidFile());
            throw new Commands.Failure("cannot start a terminal: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Commands.Failure("interrupted while starting a terminal");
        } finally {
            if (listening >= 0) {
                Descriptors.close(listening);
            }
            try {
                Files.deleteIfExists(tty.socket());
            } catch (IOException ignored) {
                // /tmp is cleaned anyway
            }
        }
    }

    private List<String> command(String sandboxId, Exec.Request request, TtyFiles tty) {
        String envFile = tty.envFile();
        // This runsc loses --process when it re-executes itself for --detach, so the terminal's
        // command goes in argv: a wrapper that sources the environment file (secrets stay out of argv).
        var command = runsc.command("exec", "--detach",
                "--console-socket", tty.socket().toString(), "--internal-pid-file", tty.pidFile().toString(),
                "--cwd", request.cwd(), sandboxId, "/.hearth/busybox", "sh", "-c",
                ". " + envFile + "; /.hearth/busybox rm -f " + envFile + "; exec \"$@\"", "hearth-terminal");
        command.addAll(request.command());
        return command;
    }

    /** The pty master runsc sends to the socket, or a failure with what runsc printed to {@code out}. */
    private static int receiveMaster(int listening, Process starter, Path out) throws IOException {
        // runsc exec --detach may exit 128 even when the terminal works (it races its own pid file),
        // so the descriptor decides; if none came, runsc's exit wakes the accept.
        var received = new AtomicBoolean();
        Pipes.execute(() -> {
            try {
                starter.waitFor();
                Thread.sleep(2000);
            } catch (InterruptedException ignored) {
                // shut down below either way
            }
            if (!received.get()) {
                Descriptors.shutdown(listening);
            }
        });
        int master = Posix.receiveDescriptor(listening);
        received.set(master >= 0);
        if (master < 0) {
            throw new Commands.Failure("runsc exec on a terminal failed: " + Files.readString(out).strip());
        }
        return master;
    }

    /** The terminal over {@code master}, with runsc wait for its exit, tracked as a running exec. */
    private Terminal open(String sandboxId, int master, String pid, Path pidFile) throws IOException {
        var waiter = new ProcessBuilder(runsc.command("wait", "--pid", pid, sandboxId))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        var terminal = new RunscTerminal(killTree, sandboxId, master, pid, waiter, pidFile);
        terminal.untrackOnClose(running.track(sandboxId, terminal::kill));
        return terminal;
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
}
