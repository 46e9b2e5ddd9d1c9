package dev.hearth.server.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * The agent's output frames (a kind byte, 4 bytes of length, the payload): stdout ('o'), stderr
 * ('e') and, last, the exit ('x', JSON).
 */
public final class Frames {
    private Frames() {
    }

    /** Where output goes as it comes. */
    @FunctionalInterface
    public interface Output {
        void output(boolean stderr, byte[] bytes) throws IOException;
    }

    /**
     * A frame's payload. Not {@code readNBytes(n)}: having read n bytes it asks the stream for 0 more,
     * and Jetty's response stream blocks on that until the next chunk, which held every frame back
     * until the command wrote again.
     */
    static byte[] payload(DataInputStream frames) throws IOException {
        byte[] payload = new byte[frames.readInt()];
        frames.readFully(payload);
        return payload;
    }

    /** Reads frames to the exit, which it answers; empty if the stream ends first and {@code exitRequired} is false. */
    static Optional<JsonNode> read(InputStream in, Output sink, boolean exitRequired) throws IOException {
        var frames = new DataInputStream(in);
        while (true) {
            int kind = frames.read();
            if (kind < 0 && !exitRequired) {
                return Optional.empty();
            }
            byte[] payload = kind < 0 ? new byte[0] : payload(frames);
            switch (kind) {
                case 'o', 'e' -> sink.output(kind == 'e', payload);
                case 'x' -> {
                    return Optional.of(Json.mapper().readTree(payload));
                }
                default -> throw new EOFException("the agent's answer ended before the command's exit");
            }
        }
    }
}
