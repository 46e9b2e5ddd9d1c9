package dev.hearth.server.computers;

import dev.hearth.api.Json;
import dev.hearth.server.http.Contract;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;

/**
 * Output as NDJSON, one object a line as it arrives: {@code {"stdout": "..."}} or
 * {@code {"stderr": "..."}}, text or base64 as asked (text never splits a UTF-8 character), then
 * whatever ends the stream. Safe to call from several threads.
 */
final class OutputLines {
    /** A line of output: text of stdout or stderr, then how it ended, or an error. */
    static final Contract.Shape SHAPE = new Contract.Shape.OneOf(List.of(
            Contract.fields("stdout", Contract.of(String.class)), Contract.fields("stderr", Contract.of(String.class)),
            Contract.fields("exit_code", Contract.of(int.class), "timed_out", Contract.of(boolean.class),
                    "duration_ms", Contract.of(long.class)),
            Contract.fields("exit_code", Contract.of(int.class)), new Contract.Shape.Error()));

    private final OutputStream out;
    private final OutputEncoding encoding;
    private final TextChunks[] text = {new TextChunks(), new TextChunks()};

    OutputLines(OutputStream out, OutputEncoding encoding) {
        this.out = out;
        this.encoding = encoding;
    }

    synchronized void output(boolean stderr, byte[] bytes) throws IOException {
        String chunk = encoding == OutputEncoding.BASE64 ? encoding.text(bytes) : text[stderr ? 1 : 0].next(bytes);
        if (!chunk.isEmpty()) {
            line(Map.of(stderr ? "stderr" : "stdout", chunk));
        }
    }

    /** Writes what text is still held (a character cut at the end), then {@code last}. */
    synchronized void end(Object last) throws IOException {
        for (int i = 0; i < 2; i++) {
            String rest = text[i].rest();
            if (!rest.isEmpty()) {
                line(Map.of(i == 1 ? "stderr" : "stdout", rest));
            }
        }
        if (last != null) {
            line(last);
        }
    }

    synchronized void line(Object value) throws IOException {
        out.write(Json.mapper().writeValueAsBytes(value));
        out.write('\n');
        out.flush();
    }
}
