package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.server.pgwire.WakeProxy;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/**
 * The public ports of databases: a new database gets the first port of the range that no live
 * database holds, no creation in flight has reserved, and nothing else on the host listens on.
 */
final class PortPool {
    private final DatabaseRows rows;
    private final String listenHost;
    private final int first;
    private final int last;
    private final Set<Integer> reserved = new HashSet<>();

    PortPool(DatabaseRows rows, DatabaseSettings settings) {
        this.rows = rows;
        this.listenHost = settings.listenHost();
        this.first = settings.firstPort();
        this.last = settings.lastPort();
    }

    /** A free port, held until {@link #release} (by then the new database's row holds it). */
    int reserve() {
        synchronized (reserved) {
            var used = rows.portsInUse();
            for (int port = first; port <= last; port++) {
                if (!used.contains(port) && !reserved.contains(port) && WakeProxy.free(listenHost, port)) {
                    reserved.add(port);
                    return port;
                }
            }
        }
        throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "no free database port left in " + first + "-"
                + last + " (hearth serve --database-ports)");
    }

    void release(int port) {
        synchronized (reserved) {
            reserved.remove(port);
        }
    }

    /** A port free on every address now (for a cluster's private port, and the pooler's when none is set). */
    static int freePort() throws IOException {
        try (var s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
