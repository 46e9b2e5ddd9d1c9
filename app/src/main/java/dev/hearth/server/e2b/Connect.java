package dev.hearth.server.e2b;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The Connect protocol as E2B's SDK speaks it, JSON codec only: a unary call is a JSON body and a
 * JSON answer (an error: its HTTP status and {@code {"code": "not_found", "message": ...}}); a
 * server stream is one enveloped request (a flags byte, 4 bytes of length, the JSON) and envelopes
 * back, the last flagged end-of-stream ({@code 0x02}) and carrying the error, if any.
 */
final class Connect {
    private static final int MAX_MESSAGE = 4 << 20;
    private static final byte END = 0x02;

    /** A Connect error: its code's name ({@code not_found}) and a message. */
    static final class Failure extends RuntimeException {
        private final String code;

        Failure(String code, String message) {
            super(message, null, false, false);
            this.code = code;
        }

        String code() {
            return code;
        }

        int status() {
            return STATUS.getOrDefault(code, 500);
        }
    }

    // connect-es's mapping between codes and HTTP statuses (protocol-connect/http-status.js).
    private static final Map<String, Integer> STATUS = Map.ofEntries(Map.entry("canceled", 499),
            Map.entry("unknown", 500), Map.entry("invalid_argument", 400), Map.entry("deadline_exceeded", 504),
            Map.entry("not_found", 404), Map.entry("already_exists", 409), Map.entry("permission_denied", 403),
            Map.entry("resource_exhausted", 429), Map.entry("failed_precondition", 400), Map.entry("aborted", 409),
            Map.entry("out_of_range", 400), Map.entry("unimplemented", 501), Map.entry("internal", 500),
            Map.entry("unavailable", 503), Map.entry("data_loss", 500), Map.entry("unauthenticated", 401));

    private Connect() {
    }

    /** A Hearth error (an E2B-shaped one from {@code /v1}) as the Connect code its status means. */
    static Failure of(E2bException e) {
        String code = switch (e.status()) {
            case 400, 422 -> "invalid_argument";
            case 401 -> "unauthenticated";
            case 403 -> "permission_denied";
            case 404 -> "not_found";
            case 409 -> "failed_precondition";
            case 413, 429, 507 -> "resource_exhausted";
            case 501 -> "unimplemented";
            case 502, 503 -> "unavailable";
            case 504 -> "deadline_exceeded";
            default -> "internal";
        };
        return new Failure(code, e.getMessage());
    }

    /** A unary call's message: the JSON body ({@code {}} when empty). */
    static JsonNode unary(Request request) {
        try (InputStream in = Content.Source.asInputStream(request)) {
            byte[] bytes = in.readNBytes(MAX_MESSAGE + 1);
            if (bytes.length > MAX_MESSAGE) {
                throw new Failure("resource_exhausted", "the message is over 4 MiB");
            }
            return bytes.length == 0 ? E2bJson.object() : E2bJson.MAPPER.readTree(bytes);
        } catch (IOException e) {
            throw new Failure("invalid_argument", "the message is not JSON: " + e.getMessage());
        }
    }

    /** A server stream's one request message, unwrapped from its envelope. */
    static JsonNode streamed(Request request) {
        try (var in = new DataInputStream(Content.Source.asInputStream(request))) {
            int flags = in.readUnsignedByte();
            int length = in.readInt();
            if ((flags & 0x01) != 0) {
                throw new Failure("internal", "compressed messages are not taken");
            }
            if (length < 0 || length > MAX_MESSAGE) {
                throw new Failure("resource_exhausted", "the message is over 4 MiB");
            }
            return E2bJson.MAPPER.readTree(in.readNBytes(length));
        } catch (IOException e) {
            throw new Failure("invalid_argument", "the message is not an enveloped JSON message: " + e.getMessage());
        }
    }

    static void answer(Response response, Callback callback, JsonNode message) {
        E2bReply.json(response, callback, 200, message);
    }

    static void fail(Response response, Callback callback, Failure failure) {
        var body = E2bJson.object();
        body.put("code", failure.code());
        body.put("message", failure.getMessage());
        E2bReply.json(response, callback, failure.status(), body);
    }

    /** The messages of a server stream, written and flushed one by one; thread-safe. */
    static final class Stream {
        private final OutputStream out;
        private boolean ended;
        private Thread pings;

        Stream(Response response) {
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/connect+json");
            this.out = Content.Sink.asOutputStream(response);
        }

        /**
         * Sends {@code ping} every {@code Keepalive-Ping-Interval} seconds (90 without the header, as
         * envd does) until the stream ends: a quiet command would otherwise meet its client's idle limit.
         */
        void keepAlive(String header, JsonNode ping) {
            long seconds = 90;
            try {
                seconds = header == null ? 90 : Math.max(1, Long.parseLong(header.strip()));
            } catch (NumberFormatException e) {
                // envd's default
            }
            long every = seconds;
            pings = Thread.ofVirtual().name("envd-keepalive").start(() -> {
                try {
                    while (true) {
                        Thread.sleep(every * 1000);
                        send(ping);
                    }
                } catch (InterruptedException | IOException ended) {
                    // the stream ended, or broke off
                }
            });
        }

        /** Stops the pings of a stream that broke off. */
        void stop() {
            if (pings != null) {
                pings.interrupt();
            }
        }

        synchronized void send(JsonNode message) throws IOException {
            if (!ended) {
                envelope((byte) 0, message);
            }
        }

        /** The end-of-stream message: {@code {}}, or the error the stream ends with. */
        synchronized void end(Failure failure) throws IOException {
            if (ended) {
                return;
            }
            ended = true;
            stop();
            ObjectNode end = E2bJson.object();
            if (failure != null) {
                var error = end.putObject("error");
                error.put("code", failure.code());
                error.put("message", failure.getMessage());
            }
            envelope(END, end);
            out.close();
        }

        private void envelope(byte flags, JsonNode message) throws IOException {
            byte[] json = E2bJson.MAPPER.writeValueAsBytes(message);
            out.write(ByteBuffer.allocate(5 + json.length).put(flags).putInt(json.length).put(json).array());
            out.flush();
        }
    }
}
