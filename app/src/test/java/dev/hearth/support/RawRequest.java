package dev.hearth.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.hearth.api.Json;
import dev.hearth.client.HearthClient.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One HTTP/1.1 request written byte for byte on a socket: the path goes out exactly as given (no
 * client library normalizes {@code ..} or re-encodes it), for tests of what a careless or hostile
 * client can send.
 */
public final class RawRequest {
    private RawRequest() {
    }

    public static Response send(int port, String method, String rawPath, Map<String, String> headers, String body)
            throws IOException {
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        var head = new StringBuilder(method + " " + rawPath + " HTTP/1.1\r\n");
        var all = new HashMap<>(headers);
        all.putIfAbsent("Host", "127.0.0.1:" + port);
        all.put("Connection", "close");
        all.put("Content-Length", Integer.toString(content.length));
        if (body != null) {
            all.putIfAbsent("Content-Type", "application/json");
        }
        all.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        head.append("\r\n");
        try (var socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            var out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(content);
            out.flush();
            return parse(socket.getInputStream().readAllBytes());
        }
    }

    private static Response parse(byte[] raw) throws IOException {
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        var lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        var headers = new HashMap<String, List<String>>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.computeIfAbsent(lines[i].substring(0, colon).strip(), k -> new ArrayList<>())
                    .add(lines[i].substring(colon + 1).strip());
        }
        byte[] body = decodeChunked(headers, java.util.Arrays.copyOfRange(raw, end + 4, raw.length));
        boolean isJson = headers.entrySet().stream().anyMatch(e -> e.getKey().equalsIgnoreCase("content-type")
                && e.getValue().getFirst().contains("json"));
        JsonNode json = body.length == 0 ? null
                : isJson ? Json.mapper().readTree(body) : TextNode.valueOf(new String(body, StandardCharsets.UTF_8));
        return new Response(status, json, HttpHeaders.of(headers, (a, b) -> true));
    }

    private static byte[] decodeChunked(Map<String, List<String>> headers, byte[] body) throws IOException {
        boolean chunked = headers.entrySet().stream().anyMatch(e -> e.getKey().equalsIgnoreCase("transfer-encoding")
                && e.getValue().contains("chunked"));
        if (!chunked) {
            return body;
        }
        var out = new ByteArrayOutputStream();
        InputStream in = new java.io.ByteArrayInputStream(body);
        while (true) {
            var size = new StringBuilder();
            for (int c = in.read(); c != '\n' && c >= 0; c = in.read()) {
                if (c != '\r') {
                    size.append((char) c);
                }
            }
            int n = Integer.parseInt(size.toString().strip(), 16);
            if (n == 0) {
                return out.toByteArray();
            }
            out.write(in.readNBytes(n));
            in.readNBytes(2);
        }
    }
}
