package dev.hearth.server.databases;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
        var counts = new HashMap<Integer, Integer>();
        read().forEach(c -> counts.merge(c[0], 1, Integer::sum));
        return counts;
    }

    /** The remote ports of the connections to {@code localPort}. */
    static Set<Integer> remotePorts(int localPort) {
        var ports = new HashSet<Integer>();
        read().stream().filter(c -> c[0] == localPort).forEach(c -> ports.add(c[1]));
        return ports;
    }

    /** Each live connection as {local port, remote port}. */
    private static List<int[]> read() {
        try {
            return parse(Files.readAllLines(TABLE));
        } catch (IOException e) {
            return List.of();
        }
    }

    static List<int[]> parse(List<String> lines) {
        var connections = new ArrayList<int[]>();
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            // "  0: 0100007F:1F90 0100007F:C350 01 ..." : slot, local address:port, remote, state.
            var fields = line.strip().split("\\s+");
            if (fields.length < 4 || !(fields[3].equals(ESTABLISHED) || fields[3].equals(SYN_RECV))) {
                continue;
            }
            connections.add(new int[] {port(fields[1]), port(fields[2])});
        }
        return connections;
    }

    private static int port(String addressAndPort) {
        return Integer.parseInt(addressAndPort.substring(addressAndPort.indexOf(':') + 1), 16);
    }
}
