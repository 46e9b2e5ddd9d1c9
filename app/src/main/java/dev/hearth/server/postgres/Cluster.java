package dev.hearth.server.postgres;

import java.nio.file.Path;

/**
 * A running postmaster: its process, the private loopback port it listens on (only Hearth's proxy
 * connects there), and its Unix socket directory (administration, as the postgres role).
 */
public record Cluster(Process process, int port, Path socketDir, String version) {
    public long pid() {
        return process.pid();
    }
}
