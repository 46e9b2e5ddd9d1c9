package dev.hearth.server.databases;

import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.checkpoints.CheckpointState;
import dev.hearth.api.checkpoints.CreateCheckpoint;
import dev.hearth.api.checkpoints.SourceType;
import dev.hearth.api.operations.OperationError;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.fs.Disk;
import dev.hearth.server.checkpoints.Accepted;
import dev.hearth.server.checkpoints.CheckpointKinds;
import dev.hearth.server.checkpoints.CheckpointSource;
import dev.hearth.server.checkpoints.CheckpointStore;
import dev.hearth.server.operations.OperationKind;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints of databases. On a volume whose copies share blocks: a copy of the database's two
 * disks taken at one moment (see {@link DatabaseDisks#snapshot}), milliseconds whatever their size,
 * awake or asleep. Elsewhere: a copy of the data directory of a sleeping database (it stays asleep),
 * or an online base backup ({@code pg_basebackup -X stream -c fast}) of an awake one (it keeps
 * serving). All are consistent. Same shapes and operations as a computer's checkpoints.
 */
public final class DatabaseCheckpoints implements CheckpointSource {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseCheckpoints.class);
    private static final String COMPLETE = "hearth-complete";

    private final Jdbi jdbi;
    private final CheckpointKinds kinds;
    private final CheckpointStore store;
    private final DatabaseService databases;
    private final Clock clock;

    public DatabaseCheckpoints(Jdbi jdbi, CheckpointKinds kinds, DatabaseService databases, Clock clock) {
        this.jdbi = jdbi;
        this.kinds = kinds;
        this.store = kinds.store();
        this.databases = databases;
        this.clock = clock;
        kinds.handle(SourceType.DATABASE, new CheckpointKinds.Handler() {
            @Override
            public void make(OperationKind.Work work) throws Exception {
                makeNow(work);
            }

            @Override
            public void delete(OperationKind.Work work) {
                deleteNow(work.resource());
            }
        });
    }

    @Override
    public Accepted create(Workspace workspace, String databaseRef, CreateCheckpoint request) {
        databases.host();
        var db = databases.live(workspace, databaseRef);
        Instant now = now();
        String name = Checkpoint.name(request == null ? null : request.name(), now);
        return kinds.begin(db.id(), "database " + db.name(), name, parent -> new Checkpoint(Ids.next(), workspace.id(),
                SourceType.DATABASE, db.id(), name, CheckpointState.CREATING, db.lineage().generation(), null,
                0, parent, null, now, null, false));
    }

    @Override
    public Page<Checkpoint> list(Workspace workspace, String databaseRef, PageRequest page) {
        var db = databases.get(workspace, databaseRef);
        return kinds.page(db.id(), db.isDeleted(), page);
    }

    @Override
    public Checkpoint get(Workspace workspace, String databaseRef, String ref) {
        var db = databases.get(workspace, databaseRef);
        return kinds.find(db.id(), "database " + db.name(), ref);
    }

    @Override
    public Accepted delete(Workspace workspace, String databaseRef, String ref) {
        databases.here(databases.get(workspace, databaseRef));
        return kinds.delete(get(workspace, databaseRef, ref), ref);
    }

    /** Marks checkpoints that were being made when Hearth stopped as failed, and drops their files. */
    public void reconcile() {
        for (var c : jdbi.withHandle(h -> store.liveOn(h, databases.node()))) {
            if (c.sourceType() == SourceType.DATABASE && c.is(CheckpointState.CREATING)) {
                Disk.deleteTree(databases.layout().checkpoint(c.id()));
                jdbi.useTransaction(h -> store.update(h, c.failed(new OperationError("interrupted",
                        "Hearth stopped while this checkpoint was being made"))));
            }
        }
    }

    // ---- the operations' side

    private void makeNow(OperationKind.Work work) throws Exception {
        var checkpoint = jdbi.withHandle(h -> store.find(h, work.resource())).orElseThrow();
        var layout = databases.layout();
        Path dir = layout.checkpoint(checkpoint.id());
        try {
            var host = databases.host();
            var clusters = host.engine().clusters();
            long size = host.supervisor().locked(checkpoint.source(), () -> {
                clusters.privateDir(dir);
                var cluster = host.supervisor().cluster(checkpoint.source());
                if (host.disks().snapshots(checkpoint.source())) {
                    work.progress("copying the database's disks (their blocks are shared)");
                    host.disks().snapshot(checkpoint.source(), dir);
                    return Disk.size(layout.data(checkpoint.source()));
                } else if (cluster != null) {
                    work.progress("taking an online base backup");
                    clusters.backup(cluster, layout.checkpointData(checkpoint.id()));
                } else {
                    work.progress("copying the stopped cluster");
                    clusters.copy(layout.data(checkpoint.source()), layout.checkpointData(checkpoint.id()));
                }
                return Disk.size(layout.checkpointData(checkpoint.id()));
            });
            Files.writeString(dir.resolve(COMPLETE), "");
            jdbi.useTransaction(h -> store.update(h, checkpoint.ready(size)));
        } catch (Exception e) {
            LOG.warn("checkpoint {} of database {} failed: {}", checkpoint.id(), checkpoint.source(), e.toString());
            Disk.deleteTree(dir);
            var error = new OperationError("checkpoint_failed", e.getMessage() == null ? e.toString() : e.getMessage());
            jdbi.useTransaction(h -> store.update(h, checkpoint.failed(error)));
            throw new OperationKind.Failure("checkpoint_failed", error.message());
        }
    }

    private void deleteNow(String checkpointId) {
        var checkpoint = jdbi.withHandle(h -> store.find(h, checkpointId)).orElseThrow();
        Disk.deleteTree(databases.layout().checkpoint(checkpointId));
        if (checkpoint.deletedAt() == null) {
            jdbi.useTransaction(h -> store.update(h, checkpoint.deleted(now())));
        }
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
