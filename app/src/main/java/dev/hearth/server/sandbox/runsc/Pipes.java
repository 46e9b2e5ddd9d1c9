package dev.hearth.server.sandbox.runsc;

import dev.hearth.server.sandbox.Exec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** The threads that move bytes through the pipes of runsc processes: stdin in, output captured or relayed. */
final class Pipes {
    // Reads and writes on process pipes block; they run on daemon platform threads rather than pinning
    // the virtual-thread carriers, pooled because starting two threads per exec showed in its latency.
    private static final ExecutorService PIPES = Executors
            .newCachedThreadPool(Thread.ofPlatform().daemon().name("exec-pipe-", 0).factory());

    private Pipes() {
    }

    /** Runs a blocking task (a wait on a process, say) on a pipe thread. */
    static void execute(Runnable task) {
        PIPES.execute(task);
    }

    /** Waits for a pipe task; its own failures were handled inside it. */
    static void join(Future<?> task) throws InterruptedException {
        try {
            task.get();
        } catch (ExecutionException e) {
            throw new UncheckedIOException(new IOException("a pipe reader failed", e.getCause()));
        }
    }

    static void feed(Process process, byte[] stdin) {
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
    static final class Capture {
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
            Pipes.join(task);
        }
    }

    static Capture capture(InputStream in, int cap) {
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

    /** Passes output to the sink as it arrives; when the sink fails, hangs up (kills the command). */
    static Future<?> relay(InputStream in, boolean stderr, Exec.Sink sink, Runnable hangUp) {
        return PIPES.submit(() -> {
            byte[] buffer = new byte[8192];
            try (in) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    try {
                        sink.output(stderr, Arrays.copyOf(buffer, n));
                    } catch (IOException clientGone) {
                        hangUp.run();
                    }
                }
            } catch (IOException ignored) {
                // the pipe closed with the process
            }
        });
    }
}
