package dev.hearth.server.databases;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Connections the kernel holds to local ports, from {@code /proc/net/tcp}: what keeps a database
 * awake once its connections reach the cluster without passing through Hearth.
 */
final class TcpConnections {
    private static final Path TABLE = Path.of("/proc/net/tcp");
    // Established, and half-open ones a listener has yet to accept (SYN_RECV).
    private static final String ESTABLISHED = "01";
    private static final String SYN_RECV = "03";

    private TcpConnections() {
    }

    /** How many connections each local port has; a table that cannot be read counts none. */
    static Map<Integer, Integer> perLocalPort() {
        try {
            return count(Files.readAllLines(TABLE));
        } catch (IOException e) {
            return Map.of();
        }
    }

    static Map<Integer, Integer> count(List<String> lines) {
        var counts = new HashMap<Integer, Integer>();
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            // "  0: 0100007F:1F90 0100007F:C350 01 ..." : slot, local address:port, remote, state.
            var fields = line.strip().split("\\s+");
            if (fields.length < 4 || !(fields[3].equals(ESTABLISHED) || fields[3].equals(SYN_RECV))) {
                continue;
            }
            int colon = fields[1].indexOf(':');
            if (colon > 0) {
                counts.merge(Integer.parseInt(fields[1].substring(colon + 1), 16), 1, Integer::sum);
            }
        }
        return counts;
    }
}
