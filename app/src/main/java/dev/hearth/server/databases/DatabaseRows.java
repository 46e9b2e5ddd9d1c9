package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.databases.DatabaseState;
import dev.hearth.server.checkpoints.CheckpointStore;
import dev.hearth.server.crypto.Keyring;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;

/**
 * The stored databases as the moves around their clusters read and write them, each read or write
 * in a transaction of its own. {@link #load} refuses a deleted or unknown database.
 */
final class DatabaseRows {
    private final Jdbi jdbi;
    private final DatabaseStore store;
    private final CheckpointStore checkpoints;
    private final Keyring keyring;

    DatabaseRows(Jdbi jdbi, DatabaseStore store, CheckpointStore checkpoints, Keyring keyring) {
        this.jdbi = jdbi;
        this.store = store;
        this.checkpoints = checkpoints;
        this.keyring = keyring;
    }

    Database load(String id) {
        return jdbi.withHandle(h -> store.find(h, id)).filter(d -> !d.isDeleted())
                .orElseThrow(() -> ApiException.notFound("database " + id));
    }

    void save(Database d) {
        jdbi.useTransaction(h -> store.update(h, d));
    }

    /** Stores a deleted database, and its checkpoints as deleted with it; returns those checkpoints. */
    List<Checkpoint> markDeleted(Database gone, Instant now) {
        return jdbi.inTransaction(h -> {
            store.update(h, gone);
            var live = checkpoints.live(h, gone.id());
            live.forEach(c -> checkpoints.update(h, c.deleted(now)));
            return live;
        });
    }

    /** The password in the clear, opened with the row's id as associated data. */
    String password(Database d) {
        return keyring.open(d.login().password(), d.associatedData());
    }

    /** Every live database, for reconciling with what runs. */
    List<Database> live() {
        return jdbi.withHandle(store::live);
    }

    /** Every live checkpoint (of computers too), for telling orphan directories from owned ones. */
    List<Checkpoint> liveCheckpoints() {
        return jdbi.withHandle(checkpoints::live);
    }

    /** Every live database of the other nodes, with where their ports are. */
    List<DatabaseStore.Away> elsewhere() {
        return jdbi.withHandle(store::elsewhere);
    }

    /** Records a database asleep on node {@code from} as this node's; false when it no longer is that. */
    boolean arrive(String id, String from) {
        return jdbi.inTransaction(h -> store.arrive(h, id, from));
    }

    Set<Integer> portsInUse() {
        return jdbi.withHandle(store::portsInUse);
    }

    /**
     * Stores a new row beside {@code db} (a restore's backup branch): the same version, names and
     * password, on the same node and host with a port of its own, asleep, unprotected, its parent {@code db}.
     */
    Database twin(Database db, String id, String name, int port, Instant now) {
        var settings = db.settings();
        var twin = new Database(id, db.workspace(), name,
                new Database.Placement(db.placement().node(), db.placement().version(), db.placement().host(), port),
                new Database.Login(db.login().dbName(), db.login().user(), keyring.seal(password(db), "database:" + id),
                        false),
                new Database.Lineage(db.id(), null, 1),
                new Database.Settings(false, settings.autoSleepSeconds(), settings.diskMb(), settings.historyHours()),
                new Database.Status(DatabaseState.SLEEPING, null, now, now, null, null));
        jdbi.useTransaction(h -> store.insert(h, twin));
        return twin;
    }

    /** Marks a row deleted whose disks are gone (an undone restore's backup), if it was stored. */
    void forget(String id, Instant now) {
        jdbi.withHandle(h -> store.find(h, id)).filter(d -> !d.isDeleted())
                .ifPresent(d -> markDeleted(d.deleted(DatabaseState.SLEEPING, now), now));
    }
}
