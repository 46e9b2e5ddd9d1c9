package dev.hearth.server.postgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The clusters' pg_hba.conf, one file for all (hba_file on each start's command line), written at
 * every start of Hearth. Only the postgres role may use a cluster's private socket; users come in
 * over TLS with SCRAM (from anywhere: a connection forwarded by the kernel keeps its source), never
 * as postgres. pgbouncer's lookup role comes in only from loopback (where this node's pooler is),
 * unless other nodes' poolers reach these clusters too ({@code poolersElsewhere}, a store nodes
 * share): then from anywhere, with its password, which never leaves the nodes. Any node relays
 * anyone's connections to these ports, so rules by address would keep no one out that this does not.
 */
record AccessRules(Path file, String open) {
    /** The private socket's rules alone: what a cluster loads while it is not to be reached over TCP yet. */
    static final String CLOSED = """
            local   all             postgres                        trust
            local   replication     postgres                        trust
            local   all             all                             reject
            """;

    static String open(boolean poolersElsewhere) {
        return CLOSED + """
                hostssl all             postgres        0.0.0.0/0       reject
                hostssl all             all             127.0.0.1/32    scram-sha-256
                hostssl all             pgbouncer       0.0.0.0/0       %s
                hostssl all             all             0.0.0.0/0       scram-sha-256
                host    all             all             0.0.0.0/0       reject
                host    all             all             ::/0            reject
                """.formatted(poolersElsewhere ? "scram-sha-256" : "reject");
    }

    static AccessRules write(Path dir, PostgresHost host, boolean poolersElsewhere) throws IOException {
        Path file = dir.resolve("pg_hba.conf");
        String open = open(poolersElsewhere);
        Files.createDirectories(dir);
        Files.writeString(file, open);
        host.giveToClusterUser(file);
        return new AccessRules(file, open);
    }
}
