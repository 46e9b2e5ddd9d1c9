package dev.hearth.server.databases;

import dev.hearth.api.databases.Archiver;
import dev.hearth.api.databases.DatabaseMetrics;
import dev.hearth.api.databases.DatabaseMetricsSample;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.fs.Disk;
import dev.hearth.server.postgres.ClusterStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What a database uses: now (sessions, archiving, size on disk) and over the last hour. Never wakes it. */
public final class DatabaseUsage {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseUsage.class);

    private final DatabaseService service;

    DatabaseUsage(DatabaseService service) {
        this.service = service;
    }

    public DatabaseMetrics now(Workspace workspace, String ref) {
        var host = service.host();
        var db = service.live(workspace, ref);
        var cluster = host.supervisor().cluster(db.id());
        Integer connections = null;
        Archiver archiving = null;
        if (cluster != null) {
            try {
                var now = ClusterStats.now(cluster);
                connections = now.connections();
                archiving = now.archiving();
            } catch (RuntimeException stoppedMeanwhile) {
                LOG.debug("database {}: no session count ({})", db.id(), stoppedMeanwhile.getMessage());
            }
        }
        try {
            return new DatabaseMetrics(db.id(), db.status().state(), connections,
                    Disk.size(service.layout().data(db.id())), archiving, service.clock().instant());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot measure database " + db.id(), e);
        }
    }

    /** The last hour of the database's sessions, transactions and size, a sample every 10 s while awake. */
    public List<DatabaseMetricsSample> history(Workspace workspace, String ref, Instant since, Instant until) {
        return service.host().samples().of(service.live(workspace, ref).id(), since, until);
    }
}
