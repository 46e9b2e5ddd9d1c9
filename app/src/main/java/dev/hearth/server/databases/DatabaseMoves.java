package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.checkpoints.CheckpointState;
import dev.hearth.api.databases.DatabaseState;
import dev.hearth.fs.Disk;
import dev.hearth.fs.Tar;
import dev.hearth.server.nodes.DatabaseCargo;
import dev.hearth.server.nodes.LocalNode;
import dev.hearth.server.nodes.Node;
import dev.hearth.server.nodes.Shipments;
import dev.hearth.server.process.Rounds;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sleeping databases moving between nodes. While an operator drains this node, each of its
 * sleeping databases goes, under its lock, to the node with the fewest databases: its two disks
 * (unmounted, sent sparse) and its checkpoints stream there as tar; that node puts them in place,
 * mounts them and records the database as its own; only then are they removed here, and this
 * node's port for it relays to the new node (a connection that waited for the move goes there).
 * An awake database moves once it sleeps. A failed move leaves it here, tried again after
 * {@link #RETRY}. This class is also the receiving side ({@link DatabaseCargo}).
 */
final class DatabaseMoves implements DatabaseCargo {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseMoves.class);
    static final Duration EVERY = Duration.ofSeconds(2);
    static final Duration RETRY = Duration.ofMinutes(1);

    private final DatabaseHost host;
    private final DatabaseRows rows;
    private final LocalNode node;
    private final Shipments shipments;
    private final Map<String, Long> failedAt = new ConcurrentHashMap<>();
    private volatile Thread thread;

    DatabaseMoves(DatabaseHost host, DatabaseRows rows, LocalNode node, Shipments shipments) {
        this.host = host;
        this.rows = rows;
        this.node = node;
        this.shipments = shipments;
    }

    /** Arrivals a stop cut short leave nothing behind; then the draining loop starts. */
    void start() {
        Disk.deleteTree(staging());
        thread = Rounds.every("database-departures", EVERY, LOG, "moving databases off this draining node failed",
                this::pass);
    }

    void stop() {
        if (thread != null) {
            thread.interrupt();
        }
    }

    private void pass() {
        if (!node.draining()) {
            return;
        }
        for (var db : rows.live()) {
            Long failed = failedAt.get(db.id());
            if (db.status().state() != DatabaseState.SLEEPING
                    || failed != null && System.nanoTime() - failed < RETRY.toNanos()) {
                continue;
            }
            var to = node.databaseMoveTarget();
            if (to.isEmpty()) {
                return;
            }
            try {
                host.supervisor().locked(db.id(), () -> move(db.id(), to.get()));
            } catch (Exception e) {
                LOG.warn("database {} ({}) could not move to node {}; it stays here: {}", db.name(), db.id(),
                        to.get().name(), e.getMessage());
                failedAt.put(db.id(), System.nanoTime());
            }
        }
    }

    /** Under the database's lock: sends it if it still sleeps here, and lets go of it once it is there's. */
    private Void move(String id, Node to) throws Exception {
        var db = rows.load(id);
        var checkpoints = checkpoints(id);
        if (db.status().state() != DatabaseState.SLEEPING || host.supervisor().awake(id) || !node.owns(db.placement().node())
                || checkpoints.stream().anyMatch(c -> c.is(CheckpointState.CREATING))) {
            return null;
        }
        var pieces = pieces(db, checkpoints).stream().filter(p -> Files.exists(host.layout().root().resolve(p))).toList();
        if (host.disks().has(id) && !host.disks().release(id)) {
            throw new IllegalStateException("its disks are busy");
        }
        LOG.info("database {} ({}) moves to node {}", db.name(), id, to.name());
        long start = System.nanoTime();
        try {
            send(to, id, pieces);
        } catch (Shipments.Refused | IOException | RuntimeException e) {
            if (node.owns(rows.load(id).placement().node())) {
                host.disks().mount(id, db.settings().diskMb());
                throw e;
            }
            // The other node recorded it although its answer was lost: it is that node's.
        }
        host.departed(db, to.databaseAddress());
        failedAt.remove(id);
        pieces.forEach(p -> Disk.deleteTree(host.layout().root().resolve(p)));
        Disk.deleteTree(host.layout().cluster(id));
        LOG.info("database {} ({}) moved to node {} in {} ms", db.name(), id, to.name(),
                (System.nanoTime() - start) / 1_000_000);
        return null;
    }

    private void send(Node to, String id, List<String> pieces) throws Shipments.Refused, IOException {
        var tar = Tar.create(host.layout().root(), pieces);
        try (var out = tar.getInputStream()) {
            shipments.database(to, id, out);
        }
        Tar.finish(tar, "tar of " + pieces);
    }

    // ---- the receiving side

    @Override
    public synchronized void receiveDatabase(String id, String from, InputStream tar) throws IOException {
        var db = rows.load(id);
        if (!db.placement().node().equals(from) || db.status().state() != DatabaseState.SLEEPING) {
            throw ApiException.conflict("database " + id + " is not asleep on node " + from);
        }
        Path staging = staging().resolve(id);
        var placed = new ArrayList<Path>();
        try {
            Disk.deleteTree(staging);
            Tar.unpack(tar, staging);
            for (String piece : pieces(db, checkpoints(id))) {
                place(staging.resolve(piece), host.layout().root().resolve(piece), placed);
            }
            if (host.disks().has(id)) {
                host.disks().mount(id, db.settings().diskMb());
            } else if (!Files.isDirectory(host.layout().data(id))) {
                throw new ApiException(ErrorCode.INVALID_REQUEST, "database " + db.name() + " came without its files");
            }
            if (!rows.arrive(id, from)) {
                throw ApiException.conflict("database " + db.name() + " changed on node " + from + " meanwhile");
            }
        } catch (IOException | RuntimeException e) {
            host.disks().release(id);
            placed.forEach(Disk::deleteTree);
            Disk.deleteTree(host.layout().cluster(id));
            throw e instanceof ApiException api ? api : new ApiException(ErrorCode.RUNTIME_UNAVAILABLE,
                    "database " + db.name() + " could not arrive: " + e.getMessage());
        } finally {
            Disk.deleteTree(staging);
        }
        host.arrived(rows.load(id));
        LOG.info("database {} ({}) arrived from node {}", db.name(), id, from);
    }

    private static void place(Path arrived, Path piece, List<Path> placed) throws IOException {
        if (!Files.exists(arrived)) {
            return;
        }
        Disk.deleteTree(piece);
        Files.createDirectories(piece.getParent());
        placed.add(piece);
        Files.move(arrived, piece, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * What of a database moves, relative to the databases directory: its disks and its checkpoints.
     */
    private static List<String> pieces(Database db, List<Checkpoint> checkpoints) {
        var pieces = new ArrayList<>(List.of("disks/" + db.id() + ".img", "disks/" + db.id() + ".wal.img"));
        checkpoints.stream().filter(c -> c.is(CheckpointState.READY)).forEach(c -> pieces.add("checkpoints/" + c.id()));
        return pieces;
    }

    private List<Checkpoint> checkpoints(String id) {
        return rows.liveCheckpoints().stream().filter(c -> c.source().equals(id)).toList();
    }

    /** On the databases' volume, so that what arrived is put in place by a rename. */
    private Path staging() {
        return host.layout().root().resolve(".arrivals");
    }
}
