package dev.hearth.server.postgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The clusters' pg_hba.conf, one file for all (hba_file on each start's command line), written at
 * every start of Hearth. Only the postgres role may use a cluster's private socket; users come in
 * over TLS with SCRAM (from anywhere: a connection forwarded by the kernel keeps its source), never
 * as postgres, and as pgbouncer's lookup role only from loopback (where the pooler is).
 */
record AccessRules(Path file) {
    /** The private socket's rules alone: what a cluster loads while it is not to be reached over TCP yet. */
    static final String CLOSED = """
            local   all             postgres                        trust
            local   replication     postgres                        trust
            local   all             all                             reject
            """;
    static final String OPEN = CLOSED + """
            hostssl all             postgres        0.0.0.0/0       reject
            hostssl all             all             127.0.0.1/32    scram-sha-256
            hostssl all             pgbouncer       0.0.0.0/0       reject
            hostssl all             all             0.0.0.0/0       scram-sha-256
            host    all             all             0.0.0.0/0       reject
            host    all             all             ::/0            reject
            """;

    static AccessRules write(Path dir, PostgresHost host) throws IOException {
        Path file = dir.resolve("pg_hba.conf");
        Files.createDirectories(dir);
        Files.writeString(file, OPEN);
        host.giveToClusterUser(file);
        return new AccessRules(file);
    }
}
