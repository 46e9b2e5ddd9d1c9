package dev.hearth.server.metrics;

import com.zaxxer.hikari.HikariPoolMXBean;
import dev.hearth.server.disks.VolumeUsage;
import dev.hearth.server.http.RequestObserver;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import jdk.jfr.consumer.RecordingStream;
import org.jdbi.v3.core.Jdbi;

/**
 * The registry {@code /metrics} shows. Requests are labelled by route template ({@code
 * /computers/{cmp}/exec}), never by path, so that no id or name of a workspace becomes a label;
 * resources are counted by state from the store at each scrape.
 */
public final class ServerMetrics implements RequestObserver, Timings, AutoCloseable {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Histogram requests;
    private final RecordingStream pinning;
    private final Map<Event, Histogram> timings = new EnumMap<>(Event.class);

    /**
     * {@code computerStates} and {@code databaseStates}: every state, so that each series exists from the
     * start, at 0; {@code volumes}: the directories (by name) that may be volumes whose copies share blocks.
     * Resources are counted for this {@code node} only.
     */
    public ServerMetrics(Jdbi jdbi, String node, Supplier<HikariPoolMXBean> pool, List<String> computerStates,
                         List<String> databaseStates, Map<String, Path> volumes) {
        JvmMetrics.builder().register(registry);
        requests = Histogram.builder().name("hearth_http_request_duration_seconds")
                .help("API requests by method, route template and status").classicOnly()
                .labelNames("method", "route", "status").register(registry);
        var counts = new StateCounts(jdbi, node);
        byState("hearth_computers", "Computers by state", "state", computerStates, counts::computers);
        byState("hearth_computers_sleeping", "Sleeping computers by depth: warm (frozen in memory) or cold (on disk)",
                "mode", List.of("warm", "cold"), counts::sleepers);
        byState("hearth_databases", "Databases by state", "state", databaseStates, counts::databases);
        byState("hearth_nodes", "Nodes sharing the store by state: up, draining, or down (lease lapsed); every node "
                + "reports all of them", "state", List.of("up", "draining", "down"), counts::nodes);
        GaugeWithCallback.builder().name("hearth_operations").help("Operations by kind and state, since the store began")
                .labelNames("kind", "state")
                .callback(cb -> counts.operations().forEach(r -> cb.call(r.count(), r.first(), r.second())))
                .register(registry);
        GaugeWithCallback.builder().name("hearth_pool_sandboxes")
                .help("The warm pool's sandboxes (booted, not yet claimed by a create) by image and state")
                .labelNames("image", "state")
                .callback(cb -> counts.pool().forEach(r -> cb.call(r.count(), r.first(), r.second())))
                .register(registry);
        GaugeWithCallback.builder().name("hearth_store_connections").help("The store's connection pool")
                .labelNames("state").callback(cb -> {
                    var bean = pool.get();
                    cb.call(bean.getActiveConnections(), "active");
                    cb.call(bean.getIdleConnections(), "idle");
                    cb.call(bean.getThreadsAwaitingConnection(), "waiting");
                }).register(registry);
        GaugeWithCallback.builder().name("hearth_volume_bytes")
                .help("The volumes Hearth made for disks and their copies: space used, and the blocks their files"
                        + " hold counted as if none were shared (allocated); the difference is what sharing saves, less"
                        + " the metadata XFS keeps from the start")
                .labelNames("volume", "kind").callback(cb -> volumes.forEach((name, dir) ->
                        VolumeUsage.of(dir).ifPresent(u -> {
                            cb.call(u.usedBytes(), name, "used");
                            cb.call(u.allocatedBytes(), name, "allocated");
                        }))).register(registry);
        pinning = pinningCounter();
        for (var event : Event.values()) {
            timings.put(event, Histogram.builder().name(event.metric()).help(event.help()).classicOnly()
                    .register(registry));
        }
    }

    /** A gauge whose value is read at each scrape, for what is known only once the services exist. */
    public void gauge(String name, String help, DoubleSupplier value) {
        GaugeWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsDouble())).register(registry);
    }

    @Override
    public void record(Event event, long nanos) {
        timings.get(event).observe(nanos / 1e9);
    }

    private void byState(String name, String help, String label, List<String> states,
                         Supplier<List<StateCounts.Row>> rows) {
        GaugeWithCallback.builder().name(name).help(help).labelNames(label).callback(cb -> {
            var counts = new LinkedHashMap<String, Long>();
            states.forEach(state -> counts.put(state, 0L));
            rows.get().forEach(r -> counts.put(r.first(), r.count()));
            counts.forEach((state, n) -> cb.call(n, state));
        }).register(registry);
    }

    /** Virtual threads pinned to their carrier (JFR's jdk.VirtualThreadPinned: blocked 20 ms or more while pinned). */
    private RecordingStream pinningCounter() {
        var pinned = Counter.builder().name("hearth_virtual_thread_pinned")
                .help("Virtual threads that blocked while pinned to a carrier thread").register(registry);
        var stream = new RecordingStream();
        stream.enable("jdk.VirtualThreadPinned");
        stream.onEvent("jdk.VirtualThreadPinned", event -> pinned.inc());
        stream.startAsync();
        return stream;
    }

    @Override
    public void observe(String method, String route, int status, long nanos) {
        requests.labelValues(method, route, Integer.toString(status)).observe(nanos / 1e9);
    }

    /** Writes every metric in Prometheus' text format. */
    public void scrape(OutputStream out) throws IOException {
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
    }

    public String contentType() {
        return PrometheusTextFormatWriter.create().getContentType();
    }

    @Override
    public void close() {
        pinning.close();
    }
}
