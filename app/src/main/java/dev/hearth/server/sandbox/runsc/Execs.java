package dev.hearth.server.sandbox.runsc;

import dev.hearth.api.Json;
import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.Exec;
import dev.hearth.server.sandbox.RunningExecs;
import dev.hearth.server.store.Ids;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commands run through {@code runsc exec} and waited for: output captured (capped) or streamed,
 * tracked while they run, killed with their whole tree at the time limit or when the caller goes.
 */
final class Execs {
    private static final Logger LOG = LoggerFactory.getLogger(Execs.class);
    private static final FileAttribute<?> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------"));
    // How often a JSON exec asks whether its caller is still there.
    private static final long CALLER_POLL_MILLIS = 500;

    private final Runsc runsc;
    private final RunningExecs running;
    private final KillTree killTree;

    Execs(Runsc runsc, RunningExecs running, KillTree killTree) {
        this.runsc = runsc;
        this.running = running;
        this.killTree = killTree;
    }

    Exec.Result exec(String sandboxId, Exec.Request request, Path scratchDir, int outputCap,
                     BooleanSupplier callerPresent) {
        return runExec(sandboxId, request, scratchDir, (started, kill, t0) -> {
            var out = Pipes.capture(started.process().getInputStream(), outputCap);
            var err = Pipes.capture(started.process().getErrorStream(), outputCap);
            boolean finished = await(sandboxId, started, request.timeout(), callerPresent);
            int code = started.process().waitFor();
            out.join();
            err.join();
            return new Exec.Result(code, out.bytes(), err.bytes(), out.truncated() || err.truncated(), !finished,
                    (System.nanoTime() - t0) / 1_000_000);
        });
    }

    Exec.Result execStreaming(String sandboxId, Exec.Request request, Path scratchDir, Exec.Sink sink,
                              BooleanSupplier callerPresent) {
        return runExec(sandboxId, request, scratchDir, (started, kill, t0) -> {
            var gone = new AtomicBoolean();
            Runnable hangUp = () -> {
                if (gone.compareAndSet(false, true)) {
                    kill.run();
                }
            };
            var out = Pipes.relay(started.process().getInputStream(), false, sink, hangUp);
            var err = Pipes.relay(started.process().getErrorStream(), true, sink, hangUp);
            boolean finished = await(sandboxId, started, request.timeout(),
                    () -> !gone.get() && callerPresent.getAsBoolean());
            int code = started.process().waitFor();
            Pipes.join(out);
            Pipes.join(err);
            return new Exec.Result(code, new byte[0], new byte[0], false, !finished, (System.nanoTime() - t0) / 1_000_000);
        });
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
            untrack = running.track(sandboxId, kill);
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

    private Runnable killer(String sandboxId, Path pidFile) {
        return () -> {
            try {
                killTree.exec(sandboxId, pidFile);
            } catch (IOException | RuntimeException e) {
                LOG.debug("killing an exec in {} failed (it may have ended)", sandboxId, e);
            }
        };
    }

    /** A started exec and the files it needs until it ends. */
    private record Started(Process process, Path processFile, Path pidFile) {
        void cleanUp() {
            Scratch.deleteQuietly(processFile);
            Scratch.deleteQuietly(pidFile);
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
        var builder = new ProcessBuilder(runsc.command("exec", "--internal-pid-file",
                pidFile.toString(), "--process", processFile.toString(), sandboxId));
        boolean hasInput = request.stdin() != null && request.stdin().length > 0;
        if (!hasInput) {
            // runsc forwards an open stdin pipe until it closes: no input costs ~9 ms less as /dev/null.
            builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        }
        var process = builder.start();
        if (hasInput) {
            Pipes.feed(process, request.stdin());
        }
        return new Started(process, processFile, pidFile);
    }

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
            killTree.exec(sandboxId, started.pidFile());
            if (!started.process().waitFor(10, TimeUnit.SECONDS)) {
                started.process().destroyForcibly();
            }
        }
        return finished;
    }
}
