package dev.hearth.server.databases;

import dev.hearth.api.databases.Archiver;
import dev.hearth.api.databases.DatabaseHistory;
import dev.hearth.api.operations.OperationError;
import dev.hearth.server.postgres.ClusterStats;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each database's history: makes its bases when they are due (see {@link Bases}) and drops
 * what lies before its window, a round every {@link #ROUND}. A base is made under the database's
 * lock, like a checkpoint: a sleep or wake waits for it (tens of milliseconds).
 */
final class HistoryKeeper {
    private static final Logger LOG = LoggerFactory.getLogger(HistoryKeeper.class);
    static final Duration ROUND = Duration.ofSeconds(30);
    static final String ARCHIVE_FAILING = "archive_failing";

    private final DatabaseHost host;
    private final Bases bases;
    private final Clock clock;

    HistoryKeeper(DatabaseHost host, Bases bases, Clock clock) {
        this.host = host;
        this.bases = bases;
        this.clock = clock;
    }

    void round() {
        for (String id : host.served()) {
            if (!bases.kept(id)) {
                continue;
            }
            try {
                host.supervisor().locked(id, () -> {
                    keep(id);
                    return null;
                });
            } catch (ClusterSupervisor.Departed movedAway) {
                LOG.debug("database {} moved to another node", id);
            } catch (Exception e) {
                LOG.warn("database {}: its history could not be kept this round: {}", id, e.toString());
            }
        }
    }

    /** The first base of a database made just now (or recovered to a moment); the caller holds it still. */
    void first(Database db) throws Exception {
        if (bases.kept(db.id())) {
            take(db.id(), db.placement().version());
        }
    }

    private void take(String id, String version) throws Exception {
        var clusters = host.engine().clusters();
        var cluster = host.supervisor().cluster(id);
        bases.take(id, cluster != null ? ClusterStats.checkpointed(cluster) : clusters.redo(version, host.layout().data(id)),
                clock);
    }

    /** How far back the database can be branched or restored: its {@code history_hours}. */
    private static Duration window(Database db) {
        return Duration.ofHours(db.settings().historyHours());
    }

    /**
     * A failing archive shows as the database's {@code error} (code {@code archive_failing}) while it
     * fails, its state unchanged: the database still takes writes, into its WAL disk.
     */
    private void watchArchive(Database db, Archiver archiver) {
        String id = db.id();
        var error = db.status().error();
        boolean shown = error != null && ARCHIVE_FAILING.equals(error.code());
        if (archiver.failing() && !shown) {
            LOG.warn("database {}: its WAL cannot be archived (last failure at {}, {}): its history stops growing and "
                    + "WAL waits on its WAL disk; see postgres.log", id, archiver.lastFailedAt(), archiver.lastFailedWal());
            host.rows().save(db.withState(db.status().state(), new OperationError(ARCHIVE_FAILING, "its WAL cannot be "
                    + "archived since " + archiver.lastFailedAt() + " (" + archiver.lastFailedWal() + "): its history stops "
                    + "growing and WAL waits on its WAL disk; writes go on"), clock.instant()));
        } else if (!archiver.failing() && shown) {
            LOG.info("database {}: its WAL is archived again", id);
            host.rows().save(db.withState(db.status().state(), null, clock.instant()));
        }
    }

    private void keep(String id) throws Exception {
        var db = host.rows().load(id);
        var newest = bases.of(id).stream().reduce((older, newer) -> newer);
        var cluster = host.supervisor().cluster(id);
        if (newest.isEmpty()) {
            take(id, db.placement().version());
        } else if (cluster != null) {
            watchArchive(db, ClusterStats.archiver(cluster));
            long written = Bases.walSince(newest.get(), ClusterStats.currentLsn(cluster));
            boolean old = newest.get().takenAt().plus(Bases.EVERY).isBefore(clock.instant());
            if (written >= Bases.WAL_BOUND || old && written > 0) {
                take(id, null);
            }
        }
        bases.prune(id, clock.instant().minus(window(db)));
    }

    DatabaseHistory window(String id) {
        var kept = bases.of(id);
        return new DatabaseHistory(kept.isEmpty() ? null : kept.getFirst().takenAt(), clock.instant(), kept.size(),
                bases.archiveBytes(id), window(host.rows().load(id)).toSeconds());
    }

}
