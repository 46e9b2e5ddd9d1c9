package dev.hearth.server.computers;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Output chunks as text for the NDJSON stream: a UTF-8 character cut between two chunks is held
 * back until the rest of it arrives, so it is not replaced by two U+FFFD.
 */
final class TextChunks {
    private byte[] held = new byte[0];

    String next(byte[] chunk) {
        byte[] bytes = held.length == 0 ? chunk : concat(held, chunk);
        int whole = wholeCharacters(bytes);
        held = Arrays.copyOfRange(bytes, whole, bytes.length);
        return new String(bytes, 0, whole, StandardCharsets.UTF_8);
    }

    /** What is still held at the end: a cut character, which the decoder replaces. */
    String rest() {
        return new String(held, StandardCharsets.UTF_8);
    }

    /** The length of {@code bytes} without a trailing character that is not complete yet. */
    private static int wholeCharacters(byte[] bytes) {
        for (int back = 1; back <= Math.min(3, bytes.length); back++) {
            int b = bytes[bytes.length - back] & 0xff;
            if ((b & 0xc0) != 0x80) {
                int need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
                return need > back ? bytes.length - back : bytes.length;
            }
        }
        return bytes.length;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
