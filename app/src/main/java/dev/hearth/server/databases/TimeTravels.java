package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Validate;
import dev.hearth.api.databases.Connection;
import dev.hearth.api.databases.OpenTimeTravel;
import dev.hearth.api.databases.TimeTravel;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.pgwire.Backends;
import dev.hearth.server.pgwire.WakeProxy;
import dev.hearth.server.postgres.Cluster;
import dev.hearth.server.store.Ids;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reading a database's past without restoring it (Neon's Time Travel). A trip is a cluster of its
 * own, made from a base and the archive as a branch at a moment is (its owner role given the
 * database's present password), then started again as a standby with no primary: it stays in
 * recovery at the moment, so it takes read-only sessions only, on a public port of its own, until it
 * expires or is ended. Trips live in this process alone: a restart of Hearth ends them, and its next
 * start removes their files as orphans.
 */
public final class TimeTravels implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TimeTravels.class);
    static final int MAX_PER_DATABASE = 2;
    static final int MIN_SECONDS = 60;
    static final int MAX_SECONDS = 4 * 3600;
    static final int DEFAULT_SECONDS = 600;
    private static final Duration ROUND = Duration.ofSeconds(1);

    private record Trip(String id, Database database, String at, Instant createdAt, Instant expiresAt, int port,
                        Cluster cluster) {
    }

    private final DatabaseService service;
    private final DatabaseRows rows;
    private final Clock clock;
    private final Map<String, Trip> trips = new ConcurrentHashMap<>();
    private final Map<String, Integer> opening = new ConcurrentHashMap<>();
    private final WakeProxy proxy = new WakeProxy(new Ports());
    private volatile Thread expiry;

    TimeTravels(DatabaseService service, DatabaseRows rows, Clock clock) {
        this.service = service;
        this.rows = rows;
        this.clock = clock;
    }

    /** A read-only cluster of the database as it was {@code at}, with the owner's password. */
    public TimeTravel open(Workspace workspace, String ref, OpenTimeTravel request) {
        var db = service.live(workspace, ref);
        int seconds = Validate.range("ttl_seconds", request.ttlSeconds(), MIN_SECONDS, MAX_SECONDS, DEFAULT_SECONDS);
        var moment = service.moments().at(db, request.at(), "at");
        hold(db);
        try {
            var trip = make(db, moment, seconds);
            trips.put(trip.id(), trip);
            LOG.info("database {} ({}): time travel {} to {} on port {}", db.name(), db.id(), trip.id(),
                    moment.target(), trip.port());
            return view(trip, rows.password(db));
        } finally {
            opening.computeIfPresent(db.id(), (id, n) -> n > 1 ? n - 1 : null);
        }
    }

    /** The database's trips, oldest first, their passwords redacted. */
    public List<TimeTravel> list(Workspace workspace, String ref) {
        var db = service.live(workspace, ref);
        return of(db.id()).stream().map(t -> view(t, Connection.REDACTED)).toList();
    }

    /** Ends a trip of the database: its sessions end and its cluster and files go. */
    public TimeTravel end(Workspace workspace, String ref, String id) {
        var db = service.live(workspace, ref);
        var trip = trips.get(id);
        if (trip == null || !trip.database().id().equals(db.id())) {
            throw ApiException.notFound("time travel " + id + " of database " + db.name());
        }
        end(trip, "ended");
        return view(trip, Connection.REDACTED);
    }

    /** Ends every trip of a database (it is being deleted). */
    void endAll(String databaseId) {
        of(databaseId).forEach(t -> end(t, "ended with its database"));
    }

    private void hold(Database db) {
        synchronized (opening) {
            int now = of(db.id()).size() + opening.getOrDefault(db.id(), 0);
            if (now >= MAX_PER_DATABASE) {
                throw ApiException.conflict("database " + db.name() + " has " + MAX_PER_DATABASE + " time travels "
                        + "open; end one (DELETE .../time_travels/{id}) or let it expire");
            }
            opening.merge(db.id(), 1, Integer::sum);
        }
        startExpiry();
    }

    private Trip make(Database db, MomentSource moment, int seconds) {
        var host = service.host();
        String id = Ids.next();
        int port = host.ports().reserve();
        try {
            host.makeClusterAt(id, db.name(), moment, db.login().user(), rows.password(db), db.settings().diskMb());
            var cluster = startAt(host, db.placement().version(), id);
            proxy.open(id, List.of(host.listenHost()), port);
            var now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
            return new Trip(id, db, moment.target().toString(), now, now.plusSeconds(seconds), port, cluster);
        } catch (IOException | RuntimeException e) {
            proxy.close(id);
            host.dropApart(id);
            host.ports().release(port);
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "database " + db.name() + " could not be read at "
                    + moment.target() + ": " + e.getMessage());
        }
    }

    /** Recovers to the moment and promotes (the owner's password is set then), then holds it in recovery. */
    private static Cluster startAt(DatabaseHost host, String version, String id) throws IOException {
        var clusters = host.engine().clusters();
        var layout = host.layout();
        var socket = clusters.privateDir(layout.socketDir(id));
        var archive = clusters.privateDir(layout.archive(id));
        clusters.stop(clusters.start(version, layout.data(id), socket, layout.log(id), PortPool.freePort(), archive));
        return clusters.startReadOnly(version, layout.data(id), socket, layout.log(id), PortPool.freePort(), archive);
    }

    private void end(Trip trip, String why) {
        if (trips.remove(trip.id()) == null) {
            return;
        }
        var host = service.host();
        proxy.close(trip.id());
        host.engine().clusters().stop(trip.cluster());
        host.dropApart(trip.id());
        host.ports().release(trip.port());
        LOG.info("database {}: time travel {} {}", trip.database().id(), trip.id(), why);
    }

    private List<Trip> of(String databaseId) {
        return trips.values().stream().filter(t -> t.database().id().equals(databaseId))
                .sorted(Comparator.comparing(Trip::createdAt)).toList();
    }

    /** The trip with {@code password} in its connection (the owner's, or {@link Connection#REDACTED}). */
    private TimeTravel view(Trip trip, String password) {
        var db = trip.database();
        var connection = Connection.direct(db.placement().host(), trip.port(), db.login().dbName(), db.login().user(),
                password, service.host().engine().caPem());
        return new TimeTravel(trip.id(), db.id(), trip.at(), trip.createdAt(), trip.expiresAt(), connection);
    }

    private synchronized void startExpiry() {
        if (expiry == null) {
            expiry = Thread.ofVirtual().name("time-travel-expiry").start(this::expireLoop);
        }
    }

    private void expireLoop() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(ROUND);
                var now = clock.instant();
                trips.values().stream().filter(t -> !now.isBefore(t.expiresAt())).forEach(t -> end(t, "expired"));
            }
        } catch (InterruptedException stopping) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        var thread = expiry;
        if (thread != null) {
            thread.interrupt();
        }
        trips.values().forEach(t -> end(t, "ended: Hearth stops"));
        proxy.close();
    }

    /** Where the trips' public ports lead: each its own cluster's private port, which never sleeps. */
    private final class Ports implements Backends {
        @Override
        public InetSocketAddress wake(String id) throws Refused {
            return target(id).orElseThrow(() -> new Refused("3D000", "this time travel has ended"));
        }

        @Override
        public Optional<InetSocketAddress> cancelTarget(String id) {
            return target(id);
        }

        private Optional<InetSocketAddress> target(String id) {
            return Optional.ofNullable(trips.get(id))
                    .map(t -> new InetSocketAddress(InetAddress.getLoopbackAddress(), t.cluster().port()));
        }

        @Override
        public void opened(String id) {
            // a trip lives until it expires or is ended, used or not
        }

        @Override
        public void closed(String id) {
        }
    }
}
