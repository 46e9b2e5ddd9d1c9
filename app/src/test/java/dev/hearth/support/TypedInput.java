package dev.hearth.support;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;

/** Standard input for interactive commands in tests. */
public final class TypedInput {
    private TypedInput() {
    }

    /** {@code text}, arriving a second late as typing does: a shell started by the command is up by then. */
    public static InputStream afterASecond(String text) {
        return new SequenceInputStream(new InputStream() {
            private boolean waited;

            @Override
            public int read() {
                if (!waited) {
                    waited = true;
                    try {
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return -1;
            }
        }, new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    }
}
