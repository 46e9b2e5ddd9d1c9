package dev.hearth.server.sandbox;

import java.io.IOException;

/** An interactive command on a terminal in a sandbox: its output, input, window size and exit. */
public interface Terminal extends AutoCloseable {
    /** Reads output; -1 when the command's terminal closed. */
    int read(byte[] buffer);

    void write(byte[] input) throws IOException;

    void resize(int columns, int rows) throws IOException;

    /** Waits for the command to end and answers its exit code. */
    int waitFor() throws InterruptedException;

    /** Kills the command and everything it started. */
    void kill();

    @Override
    void close();
}
