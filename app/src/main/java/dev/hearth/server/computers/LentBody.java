package dev.hearth.server.computers;

import java.io.IOException;
import java.io.InputStream;

/**
 * A request's body lent to an upload to the agent, and taken back when the agent refused it midway.
 * The agent's client reads the body on a thread of its own and may still be reading when the
 * refusal arrives; two readers of one request body break it (the client then saw its connection
 * closed without an answer). Taking it back waits for a read under way, and later reads of the
 * loan fail, so that what the client still sends is read by one reader only.
 */
final class LentBody extends InputStream {
    private final InputStream body;
    private boolean returned;

    LentBody(InputStream body) {
        this.body = body;
    }

    @Override
    public synchronized int read() throws IOException {
        lent();
        return body.read();
    }

    @Override
    public synchronized int read(byte[] into, int off, int len) throws IOException {
        lent();
        return body.read(into, off, len);
    }

    @Override
    public synchronized int available() throws IOException {
        lent();
        return body.available();
    }

    /** The body, for one reader only from now on. */
    synchronized InputStream takeBack() {
        returned = true;
        return body;
    }

    private void lent() throws IOException {
        if (returned) {
            throw new IOException("the upload was refused; its body is read elsewhere");
        }
    }
}
