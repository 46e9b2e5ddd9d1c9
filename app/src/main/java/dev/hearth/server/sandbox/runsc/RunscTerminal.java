package dev.hearth.server.sandbox.runsc;

import dev.hearth.api.Json;
import dev.hearth.server.process.Descriptors;
import dev.hearth.server.sandbox.Terminal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** A terminal exec: the pty master from runsc, and runsc wait for the exit status. */
final class RunscTerminal implements Terminal {
    private final KillTree killTree;
    private final String sandboxId;
    private final int master;
    private final String pid;
    private final Process waiter;
    private final Path pidFile;
    private volatile boolean closed;
    private volatile Runnable untrack = () -> { };

    RunscTerminal(KillTree killTree, String sandboxId, int master, String pid, Process waiter, Path pidFile) {
        this.killTree = killTree;
        this.sandboxId = sandboxId;
        this.master = master;
        this.pid = pid;
        this.waiter = waiter;
        this.pidFile = pidFile;
    }

    /** What {@link #close} runs to stop counting this terminal as a running exec. */
    void untrackOnClose(Runnable untrack) {
        this.untrack = untrack;
    }

    @Override
    public int read(byte[] buffer) {
        return closed ? -1 : Descriptors.read(master, buffer);
    }

    @Override
    public void write(byte[] input) throws IOException {
        Descriptors.write(master, input, input.length);
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
            Descriptors.close(master);
            waiter.destroy();
            Scratch.deleteQuietly(pidFile);
            untrack.run();
        }
    }
}
