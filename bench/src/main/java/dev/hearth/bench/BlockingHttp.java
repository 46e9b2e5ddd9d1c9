package dev.hearth.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * An HTTP/1.1 client that does what curl does: one kept-alive socket, the request written and the
 * answer read on the caller's thread. The JDK's HttpClient hands each exchange between three threads,
 * which on this 2-core VM costs a millisecond or more when the cores were idle; that is the
 * client's cost, not the server's, so the bench times Hearth with this one beside it.
 */
final class BlockingHttp implements AutoCloseable {
    private final URI base;
    private final String token;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    BlockingHttp(String baseUrl, String token) {
        this.base = URI.create(baseUrl);
        this.token = token;
    }

    /** Sends a request and returns the answer's status; fails on anything but 2xx. */
    int send(String method, String path, String json) throws IOException {
        return send(method, path, json, "");
    }

    /** A create: with an Idempotency-Key; answers the body (the created resource). */
    String create(String path, String json, String idempotencyKey) throws IOException {
        send("POST", path, json, "Idempotency-Key: " + idempotencyKey + "\r\n");
        return lastBody;
    }

    private String lastBody = "";

    private int send(String method, String path, String json, String extraHeaders) throws IOException {
        if (socket == null) {
            socket = new Socket(base.getHost(), base.getPort());
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }
        byte[] body = json == null ? new byte[0] : json.getBytes(StandardCharsets.UTF_8);
        String head = method + " " + base.getPath() + path + " HTTP/1.1\r\nHost: " + base.getAuthority()
                + "\r\nAuthorization: Bearer " + token + "\r\nContent-Type: application/json\r\n" + extraHeaders
                + "Content-Length: " + body.length + "\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        return readAnswer();
    }

    private int readAnswer() throws IOException {
        int status = Integer.parseInt(line().split(" ")[1]);
        long length = -1;
        boolean chunked = false;
        for (String header = line(); !header.isEmpty(); header = line()) {
            String lower = header.toLowerCase();
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(lower.substring(15).strip());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        if (chunked) {
            for (long size = Long.parseLong(line().strip(), 16); size > 0; size = Long.parseLong(line().strip(), 16)) {
                in.readNBytes((int) size);
                line();
            }
            line();
        } else if (length > 0) {
            lastBody = new String(in.readNBytes((int) length), StandardCharsets.UTF_8);
        }
        if (status / 100 != 2) {
            throw new IOException("HTTP " + status);
        }
        return status;
    }

    private String line() throws IOException {
        var buffer = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("the server closed the connection");
            }
            if (b != '\r') {
                buffer.write(b);
            }
        }
        return buffer.toString(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        if (socket != null) {
            socket.close();
        }
    }
}
