package dev.hearth.server.databases;

import dev.hearth.api.databases.DatabaseState.Move;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes what the store says true when Hearth starts: clusters an earlier Hearth left running are
 * stopped cleanly (their databases wake again on the next connection), resets recorded while
 * asleep are applied, every database's disks are mounted (grown if PATCH asked), it listens on its
 * port and is in the pooler, and files and disks without a row go.
 */
final class ClusterReconciler {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterReconciler.class);
    private final DatabaseHost host;
    private final DatabaseRows rows;
    private final Clock clock;

    ClusterReconciler(DatabaseHost host, DatabaseRows rows, Clock clock) {
        this.host = host;
        this.rows = rows;
        this.clock = clock;
    }

    void reconcile() {
        long started = System.nanoTime();
        var live = rows.live();
        live.forEach(this::reconcile);
        removeOrphans(live);
        if (!live.isEmpty()) {
            LOG.info("{} databases on their ports (they wake on their next connection), {} ms after the start of"
                    + " their reconcile", live.size(), (System.nanoTime() - started) / 1_000_000);
        }
    }

    private void reconcile(Database db) {
        try {
            host.disks().mount(db.id(), db.settings().diskMb());
        } catch (IOException | RuntimeException e) {
            LOG.error("database {}: its disks cannot be mounted: {}", db.id(), e.toString());
        }
        stopLeftOver(db.id());
        if (host.engine().poolerRekeyed()) {
            poolerRekeyed(db.id());
        }
        var state = db.status().state();
        if (state.allows(Move.SLEEP)) {
            rows.save(rows.load(db.id()).withState(state.after(Move.SLEEP), db.status().error(), now()));
        }
        if (db.login().resetPending()) {
            host.supervisor().applyPendingReset(db.id());
        }
        try {
            host.serve(db);
        } catch (RuntimeException e) {
            LOG.error("database {} cannot listen on port {}: {}", db.id(), db.placement().port(), e.getMessage());
        }
    }

    /** The pooler's password is the other nodes' now: the cluster's lookup role gets it at its next start. */
    private void poolerRekeyed(String id) {
        try {
            host.engine().clusters().setPoolerPasswordAtStart(host.layout().data(id));
        } catch (IOException | RuntimeException e) {
            LOG.error("database {}: the pooler's new password cannot be set; pooled logins fail: {}", id, e.toString());
        }
    }

    private void stopLeftOver(String id) {
        var clusters = host.engine().clusters();
        clusters.postmasterOf(host.layout().data(id)).ifPresent(postmaster -> {
            LOG.info("database {}: stopping the cluster an earlier Hearth left running (pid {})", id,
                    postmaster.pid());
            clusters.stop(postmaster);
        });
    }

    private void removeOrphans(List<Database> live) {
        var ids = new HashSet<String>();
        live.forEach(d -> ids.add(d.id()));
        var checkpoints = new HashSet<String>();
        // Only this node's databases' checkpoints: one of a database that moved away is another node's now.
        rows.liveCheckpoints().stream().filter(c -> ids.contains(c.source())).forEach(c -> checkpoints.add(c.id()));
        stopUnowned(host.layout().root().resolve("clusters"), ids);
        host.disks().removeUnowned(ids);
        orphans(host.layout().root().resolve("clusters"), ids);
        orphans(host.layout().root().resolve("checkpoints"), checkpoints);
        orphans(host.layout().root().resolve("history"), ids);
        host.trash().emptyLater();
    }

    /**
     * A cluster no database owns may still run: a time travel's or a restore's recovery that a killed
     * Hearth left. It holds its disks mounted, so it is stopped before they go.
     */
    private void stopUnowned(Path dir, Set<String> keep) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> children = Files.list(dir)) {
            children.map(p -> p.getFileName().toString()).filter(id -> !keep.contains(id)).forEach(this::stopLeftOver);
        } catch (IOException e) {
            LOG.warn("cannot list {}: {}", dir, e.toString());
        }
    }

    private void orphans(Path dir, Set<String> keep) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> children = Files.list(dir)) {
            children.filter(p -> !keep.contains(p.getFileName().toString())).forEach(p -> {
                LOG.info("removing {}: no database or checkpoint in the store owns it", p);
                host.trash().put(p);
            });
        } catch (IOException e) {
            LOG.warn("cannot list {}: {}", dir, e.toString());
        }
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
