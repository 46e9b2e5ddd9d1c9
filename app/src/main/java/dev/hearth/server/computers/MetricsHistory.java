package dev.hearth.server.computers;

import dev.hearth.api.computers.ComputerMetrics;
import dev.hearth.api.computers.Sample;
import dev.hearth.server.process.Rounds;
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
 * The last hour of what each awake computer of this node used, one sample every 5 s, for charts and
 * E2B's metrics: CPU (and its share of the computer's CPUs since the sample before), memory and
 * disk. Kept in memory: a restart of hearth serve starts the history again.
 */
final class MetricsHistory {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsHistory.class);
    static final Duration EVERY = Duration.ofSeconds(5);
    private static final int KEPT = (int) (Duration.ofHours(1).toSeconds() / EVERY.toSeconds());

    private final ComputerRecords records;
    private final ComputerUsage usage;
    private final Map<String, ArrayDeque<Sample>> samples = new ConcurrentHashMap<>();

    MetricsHistory(ComputerRecords records, ComputerUsage usage) {
        this.records = records;
        this.usage = usage;
    }

    Thread start() {
        return Rounds.every("computer-metrics", EVERY, LOG, "sampling computers' metrics failed", this::sample);
    }

    /** The samples of a computer between {@code since} and {@code until} (either null: unbounded), oldest first. */
    List<Sample> of(String computerId, Instant since, Instant until) {
        var kept = samples.get(computerId);
        if (kept == null) {
            return List.of();
        }
        synchronized (kept) {
            return kept.stream().filter(s -> (since == null || !s.at().isBefore(since))
                    && (until == null || !s.at().isAfter(until))).toList();
        }
    }

    private void sample() {
        var live = records.jdbi().withHandle(h -> records.store().live(h));
        var ids = new java.util.HashSet<String>();
        for (var c : live) {
            ids.add(c.id());
            if (c.phase() == Phase.AWAKE) {
                try {
                    add(c, usage.of(c));
                } catch (RuntimeException e) {
                    LOG.debug("no sample of computer {}: {}", c.id(), e.toString());
                }
            }
        }
        samples.keySet().retainAll(ids);
    }

    private void add(Computer c, ComputerMetrics now) {
        if (now.cpuSeconds() == null || now.memoryBytes() == null) {
            return;
        }
        var kept = samples.computeIfAbsent(c.id(), k -> new ArrayDeque<>());
        synchronized (kept) {
            var last = kept.peekLast();
            Double percent = null;
            if (last != null) {
                double seconds = Duration.between(last.at(), now.measuredAt()).toNanos() / 1e9;
                double cpus = c.settings().resources().cpus();
                percent = seconds <= 0 ? null : Math.max(0, (now.cpuSeconds() - last.cpuSeconds()) / seconds / cpus * 100);
            }
            // Milliseconds, as the wire shows them: a since or until a client copies from one matches it.
            kept.addLast(new Sample(now.measuredAt().truncatedTo(ChronoUnit.MILLIS), now.cpuSeconds(), percent,
                    now.memoryBytes(), (long) c.settings().resources().memoryMb() << 20, now.diskUsedBytes(),
                    now.diskSizeBytes()));
            while (kept.size() > KEPT) {
                kept.removeFirst();
            }
        }
    }
}
