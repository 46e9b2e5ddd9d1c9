package dev.hearth.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An HTTP/1.1 client that writes the request exactly as given (raw target, any header, any bytes)
 * and reads any answer without judging it: the probe sends what well-behaved clients refuse to
 * build (bad percent-encoding, 100 KB headers), and the load bench wants errors counted, not thrown.
 * Like {@link BlockingHttp} it keeps one socket and works on the caller's thread; it reconnects
 * when the server closed the connection.
 */
final class RawHttp implements AutoCloseable {
    /** One answer; header names lower-cased (the first of repeated ones); {@code nanos} from write to last byte. */
    record Answer(int status, Map<String, String> headers, byte[] body, long nanos) {
        String header(String name) {
            return headers.get(name);
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        double millis() {
            return nanos / 1e6;
        }
    }

    private final String host;
    private final int port;
    private final String hostHeader;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    RawHttp(String host, int port) {
        this(host, port, host + ":" + port);
    }

    /** One that connects to {@code host:port} and names {@code hostHeader} in Host (a router's host names). */
    RawHttp(String host, int port, String hostHeader) {
        this.host = host;
        this.port = port;
        this.hostHeader = hostHeader;
    }

    /** A JSON request with a bearer token (null: none) and extra header lines ("Name: value"). */
    Answer json(String method, String target, String token, String json, List<String> headers) throws IOException {
        var lines = new ArrayList<>(headers);
        if (token != null) {
            lines.add("Authorization: Bearer " + token);
        }
        if (json != null) {
            lines.add("Content-Type: application/json");
        }
        return send(method, target, lines, json == null ? null : json.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Sends {@code method target} with {@code headers} as given, then Host and, for a body, its
     * Content-Length unless a header line already frames it. A kept-alive socket the server closed
     * meanwhile fails before any answer byte; that one request is sent again on a new socket.
     */
    Answer send(String method, String target, List<String> headers, byte[] body) throws IOException {
        boolean reused = socket != null;
        try {
            return exchange(method, target, headers, body);
        } catch (IOException e) {
            close();
            if (!reused || e instanceof AnswerStarted) {
                throw e;
            }
            return exchange(method, target, headers, body);
        }
    }

    private Answer exchange(String method, String target, List<String> headers, byte[] body) throws IOException {
        if (socket == null) {
            socket = new Socket(host, port);
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(120_000);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }
        var head = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: ")
                .append(hostHeader).append("\r\n");
        boolean framed = false;
        for (String line : headers) {
            head.append(line).append("\r\n");
            String lower = line.toLowerCase();
            framed |= lower.startsWith("content-length:") || lower.startsWith("transfer-encoding:");
        }
        if (body != null && !framed) {
            head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        long start = System.nanoTime();
        try {
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            if (body != null) {
                out.write(body);
            }
            out.flush();
        } catch (IOException refusedMidway) {
            // a server refusing a huge request may answer and close before reading all of it: read that answer
        }
        return read(start);
    }

    private Answer read(long start) throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("the server closed the connection without an answer");
        }
        try {
            int status = Integer.parseInt(statusLine.split(" ")[1]);
            var headers = new HashMap<String, String>();
            for (String header = line(); header != null && !header.isEmpty(); header = line()) {
                int colon = header.indexOf(':');
                if (colon > 0) {
                    headers.putIfAbsent(header.substring(0, colon).strip().toLowerCase(), header.substring(colon + 1).strip());
                }
            }
            // 1xx, 204 and 304 have no body, whatever their headers say
            byte[] body = status < 200 || status == 204 || status == 304 ? new byte[0] : body(headers);
            if ("close".equalsIgnoreCase(headers.get("connection"))) {
                close();
            }
            return new Answer(status, headers, body, System.nanoTime() - start);
        } catch (IOException | RuntimeException e) {
            throw new AnswerStarted("broken answer after \"" + statusLine + "\": " + e);
        }
    }

    private byte[] body(Map<String, String> headers) throws IOException {
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            var body = new ByteArrayOutputStream();
            for (long size = Long.parseLong(line().strip(), 16); size > 0; size = Long.parseLong(line().strip(), 16)) {
                body.write(in.readNBytes((int) size));
                line();
            }
            line();
            return body.toByteArray();
        }
        String length = headers.get("content-length");
        if (length != null) {
            return in.readNBytes(Integer.parseInt(length));
        }
        // no framing: the answer ends when the server closes
        byte[] rest = in.readAllBytes();
        close();
        return rest;
    }

    /** A line without its CRLF; null at end of stream before any byte. */
    private String line() throws IOException {
        var buffer = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                return buffer.size() == 0 ? null : buffer.toString(StandardCharsets.ISO_8859_1);
            }
            if (b != '\r') {
                buffer.write(b);
            }
        }
        return buffer.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a dead socket: nothing to do
            }
            socket = null;
        }
    }

    /** The answer had begun: the request reached the server, so it is not sent again. */
    private static final class AnswerStarted extends IOException {
        AnswerStarted(String message) {
            super(message);
        }
    }
}
