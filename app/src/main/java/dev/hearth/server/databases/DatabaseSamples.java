package dev.hearth.server.databases;

import dev.hearth.api.databases.DatabaseMetricsSample;
import dev.hearth.fs.Disk;
import dev.hearth.server.postgres.ClusterStats;
import dev.hearth.server.process.Rounds;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last hour of each awake database of this node, one sample every 10 s, for the console's
 * charts: client sessions, transactions a second since the sample before, and the size of its
 * data directory. Kept in memory (a restart starts it again); a sleeping database adds none.
 */
final class DatabaseSamples {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseSamples.class);
    static final Duration EVERY = Duration.ofSeconds(10);
    private static final int KEPT = (int) (Duration.ofHours(1).toSeconds() / EVERY.toSeconds());

    private record Kept(ArrayDeque<DatabaseMetricsSample> samples, long[] lastTransactions) {
    }

    private final DatabaseHost host;
    private final Clock clock;
    private final Map<String, Kept> kept = new ConcurrentHashMap<>();

    DatabaseSamples(DatabaseHost host, Clock clock) {
        this.host = host;
        this.clock = clock;
    }

    Thread start() {
        return Rounds.every("database-metrics", EVERY, LOG, "sampling databases' metrics failed", this::sample);
    }

    /** The samples of a database between {@code since} and {@code until} (either null: unbounded), oldest first. */
    List<DatabaseMetricsSample> of(String database, Instant since, Instant until) {
        var k = kept.get(database);
        if (k == null) {
            return List.of();
        }
        synchronized (k) {
            return k.samples().stream().filter(s -> (since == null || !s.at().isBefore(since))
                    && (until == null || !s.at().isAfter(until))).toList();
        }
    }

    private void sample() {
        var served = host.served();
        kept.keySet().retainAll(served);
        for (String id : served) {
            var cluster = host.supervisor().cluster(id);
            if (cluster == null) {
                var k = kept.get(id);
                if (k != null) {
                    k.lastTransactions()[0] = -1; // the next run's counters start again
                }
                continue;
            }
            try {
                add(id, ClusterStats.activity(cluster), Disk.size(host.layout().data(id)));
            } catch (IOException | RuntimeException asleepMeanwhile) {
                LOG.debug("no sample of database {}: {}", id, asleepMeanwhile.toString());
            }
        }
    }

    private void add(String id, ClusterStats.Activity activity, long size) {
        var k = kept.computeIfAbsent(id, x -> new Kept(new ArrayDeque<>(), new long[] {-1}));
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        synchronized (k) {
            var last = k.samples().peekLast();
            long before = k.lastTransactions()[0];
            Double rate = null;
            if (last != null && before >= 0 && activity.transactions() >= before) {
                double seconds = Duration.between(last.at(), now).toMillis() / 1000.0;
                rate = seconds <= 0 ? null : (activity.transactions() - before) / seconds;
            }
            k.lastTransactions()[0] = activity.transactions();
            k.samples().addLast(new DatabaseMetricsSample(now, activity.connections(), rate, size));
            while (k.samples().size() > KEPT) {
                k.samples().removeFirst();
            }
        }
    }
}
