package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Validate;
import dev.hearth.api.databases.CreateDatabase;
import dev.hearth.api.databases.DatabaseHistory;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.postgres.ClusterStats;
import dev.hearth.server.store.Ids;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A database's past as the API offers it: its window, a branch as it was at a moment, and a restore
 * in place to a moment that keeps what it was as a branch of its own (see {@link Swap}).
 */
public final class Moments {
    private static final Logger LOG = LoggerFactory.getLogger(Moments.class);
    private static final Duration POOL_PAUSE_LIMIT = Duration.ofSeconds(5);
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    /** A restored database, and the branch that holds what it was just before. */
    public record Restored(Database database, Database backup) {
    }

    private final DatabaseService service;
    private final DatabaseRows rows;
    private final Clock clock;
    private final Set<String> restoring = ConcurrentHashMap.newKeySet();

    Moments(DatabaseService service, DatabaseRows rows, Clock clock) {
        this.service = service;
        this.rows = rows;
        this.clock = clock;
    }

    /** How far back the database can be branched or restored now. */
    public DatabaseHistory window(Workspace workspace, String ref) {
        return service.host().keeper().window(service.live(workspace, ref).id());
    }

    /** The moment a branch is asked at ({@code from_database} and {@code at}), or null for another create. */
    MomentSource source(Workspace workspace, CreateDatabase request) {
        if (request.fromDatabase() == null && request.at() == null) {
            return null;
        }
        if (request.fromCheckpoint() != null) {
            throw ApiException.invalidField("from_checkpoint", "give from_checkpoint, or from_database and at, not both");
        }
        return at(service.live(workspace, Validate.required("from_database", request.fromDatabase())), request.at(),
                "from_database");
    }

    /** {@code at} of the database's history (a time or an LSN), or 400 naming {@code field} with the window. */
    MomentSource at(Database database, String at, String field) {
        var host = service.host();
        if (!host.bases().kept(database.id())) {
            throw ApiException.invalidField(field, "database " + database.name() + " keeps no history: it has no "
                    + "disks of its own on a volume whose copies share blocks");
        }
        return MomentSource.find(database, at, host.bases(), host.keeper().window(database.id()),
                () -> endLsn(database));
    }

    /** Where the database's WAL ends now, X/Y: its cluster's insert point, or a stopped one's last checkpoint. */
    private String endLsn(Database db) {
        var host = service.host();
        var cluster = host.supervisor().cluster(db.id());
        try {
            return cluster != null ? ClusterStats.currentLsn(cluster)
                    : host.engine().clusters().redo(db.placement().version(), host.layout().data(db.id())).lsn();
        } catch (RuntimeException e) {
            LOG.debug("database {}: where its WAL ends is not known now ({})", db.id(), e.toString());
            return null;
        }
    }

    /** A new database's first base, so that its history starts when it is made. */
    Database first(Database db) {
        try {
            service.locked(db.id(), () -> {
                service.host().keeper().first(db);
                return null;
            });
        } catch (ApiException e) {
            LOG.warn("database {}: no first base ({}); the next round makes one", db.id(), e.getMessage());
        }
        return db;
    }

    /**
     * A branch at a moment replays WAL as it first starts: done here, so that the branch stands on its
     * own at once (the source's WAL may be pruned later). One that cannot reach its moment is removed.
     */
    Database recovered(Database db, MomentSource moment) {
        var host = service.host();
        try {
            return service.locked(db.id(), () -> {
                host.supervisor().start(db.id());
                host.keeper().first(db);
                return rows.load(db.id());
            });
        } catch (ApiException e) {
            service.locked(db.id(), () -> {
                host.discard(db.id(), rows.markDeleted(rows.load(db.id()).deleted(host.retire(db), service.now()),
                        service.now()));
                return null;
            });
            host.forget(db.id());
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "the branch of " + moment.database().name() + " at "
                    + moment.target() + " could not be made: " + e.getMessage());
        }
    }

    /**
     * Rolls a database back to a moment in place: same id, name, port and password. Its state at that
     * moment is made apart first (from a base, replaying WAL) while it still serves; then, under its
     * lock, its sessions end once, its disks become a new branch named {@code NAME-before-STAMP}, the
     * recovered disks become its own, and it starts again.
     */
    public Restored restore(Workspace workspace, String ref, String at) {
        var db = service.live(workspace, ref);
        if (!restoring.add(db.id())) {
            throw ApiException.conflict("database " + db.name() + " is being restored; wait for that first");
        }
        try {
            var moment = at(db, at, "at");
            var host = service.host();
            var swap = new Swap(host, db.id(), Ids.next(), Ids.next());
            swap.recoverApart(moment, db, rows.password(db));
            int port = host.ports().reserve();
            try {
                return service.locked(db.id(), () -> restoreNow(host, swap, rows.load(db.id()), port));
            } catch (RuntimeException e) {
                swap.abandon();
                throw e;
            } finally {
                host.ports().release(port);
            }
        } finally {
            restoring.remove(db.id());
        }
    }

    private Restored restoreNow(DatabaseHost host, Swap swap, Database db, int port) throws Exception {
        var pooler = host.engine().pooler();
        pooler.pause(db.id(), POOL_PAUSE_LIMIT);
        try {
            host.supervisor().sleepNow(db.id());
        } finally {
            pooler.resume(db.id());
        }
        swap.begin();
        var backup = rows.twin(db, swap.backup(), db.name() + "-before-" + STAMP.format(clock.instant()), port,
                service.now());
        swap.exchange(db.settings().diskMb());
        host.serve(backup);
        host.supervisor().start(db.id());
        host.keeper().first(db);
        LOG.info("database {} ({}) restored; what it was is database {} ({})", db.name(), db.id(), backup.name(),
                backup.id());
        return new Restored(rows.load(db.id()), rows.load(backup.id()));
    }

    /** Ends restores a stopped server left half-done: before the swap they are undone, after it finished. */
    void finishInterrupted() {
        var host = service.host();
        for (var swap : Swap.interrupted(host)) {
            try {
                if (swap.finish()) {
                    LOG.info("database {}: an interrupted restore is finished", swap.id());
                } else {
                    rows.forget(swap.backup(), service.now());
                    LOG.info("database {}: an interrupted restore is undone", swap.id());
                }
            } catch (RuntimeException e) {
                LOG.error("database {}: an interrupted restore could not be settled: {}", swap.id(), e.toString());
            }
        }
    }
}
