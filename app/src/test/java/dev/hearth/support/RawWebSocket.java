package dev.hearth.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A hand-made WebSocket client on any socket (plain or TLS), for what the router relays: the
 * upgrade request, short text frames out (masked) and in (whole, unmasked).
 */
public final class RawWebSocket {
    private RawWebSocket() {
    }

    /** Sends the upgrade request (the RFC 6455 sample key, so the accept value is known). */
    public static void upgrade(OutputStream out, String host, String path) throws IOException {
        out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** The accept value the server answers to {@link #upgrade}'s key. */
    public static final String ACCEPT = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

    public static String readHead(DataInputStream in) throws IOException {
        var head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            head.write(in.readUnsignedByte());
        }
        return head.toString(StandardCharsets.US_ASCII);
    }

    public static byte[] readAvailable(DataInputStream in) {
        try {
            return in.readNBytes(Math.max(0, in.available()));
        } catch (IOException e) {
            return new byte[0];
        }
    }

    public static String readText(DataInputStream in) throws IOException {
        int first = in.readUnsignedByte();
        assertEquals(0x81, first, "a whole text frame");
        int length = in.readUnsignedByte() & 0x7f;
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new String(payload, StandardCharsets.UTF_8);
    }

    public static void sendText(OutputStream out, String text) throws IOException {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        byte[] mask = {1, 2, 3, 4};
        out.write(0x81);
        out.write(0x80 | payload.length);
        out.write(mask);
        for (int i = 0; i < payload.length; i++) {
            out.write(payload[i] ^ mask[i % 4]);
        }
        out.flush();
    }
}
