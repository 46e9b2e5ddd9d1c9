package dev.hearth.server.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The client's end of an HTTP/1.1 connection, asked whether it is still there. Jetty learns of a
 * client that hung up only when it next reads or writes, and a handler waiting on a long command
 * does neither: the kernel's TCP table says at once (the socket is in CLOSE_WAIT, or gone).
 */
public final class Peer {
    private static final List<Path> TABLES = List.of(Path.of("/proc/net/tcp6"), Path.of("/proc/net/tcp"));
    private static final String CLOSE_WAIT = "08";

    private final SocketAddress local;
    private final SocketAddress remote;

    Peer(SocketAddress local, SocketAddress remote) {
        this.local = local;
        this.remote = remote;
    }

    /** The client's address (the loopback one when the connection is not over IP). */
    public InetAddress address() {
        return remote instanceof InetSocketAddress r && r.getAddress() != null ? r.getAddress()
                : InetAddress.getLoopbackAddress();
    }

    /** The connection as the kernel's tables name it: local then remote address, IPv4 and IPv6 forms. */
    private List<String> keys() {
        if (local instanceof InetSocketAddress l && remote instanceof InetSocketAddress r) {
            return List.of(key(l, false) + " " + key(r, false), key(l, true) + " " + key(r, true));
        }
        return List.of();
    }

    /**
     * False once the client has closed its end (or the connection is gone). A client that cannot be
     * looked up (not TCP, no /proc) counts as connected, so nothing is ever killed by mistake.
     */
    public boolean connected() {
        var keys = keys();
        if (keys.isEmpty()) {
            return true;
        }
        boolean tableRead = false;
        for (Path table : TABLES) {
            try (var lines = Files.lines(table)) {
                tableRead = true;
                var state = lines.map(String::strip)
                        .filter(line -> keys.stream().anyMatch(key -> line.contains(": " + key + " ")))
                        .map(line -> line.split("\\s+")[3])
                        .findFirst();
                if (state.isPresent()) {
                    return !state.get().equals(CLOSE_WAIT);
                }
            } catch (IOException | UncheckedIOException e) {
                // no such table (IPv6 off, say): try the other
            }
        }
        return !tableRead;
    }

    // /proc/net/tcp{,6} write each address as 32-bit words in host (little-endian) order, then :PORT.
    private static String key(InetSocketAddress address, boolean asIpv6) {
        byte[] bytes = bytes(address.getAddress(), asIpv6);
        var hex = new StringBuilder();
        for (int word = 0; word < bytes.length; word += 4) {
            for (int i = 3; i >= 0; i--) {
                hex.append(String.format("%02X", bytes[word + i] & 0xff));
            }
        }
        return hex + ":" + String.format(Locale.ROOT, "%04X", address.getPort());
    }

    private static byte[] bytes(InetAddress address, boolean asIpv6) {
        byte[] raw = address.getAddress();
        if (address instanceof Inet4Address && asIpv6) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(raw, 0, mapped, 12, 4);
            return mapped;
        }
        return raw;
    }
}
