package dev.hearth.server.operations;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import dev.hearth.api.operations.OperationError;
import dev.hearth.api.operations.OperationState;
import dev.hearth.api.operations.OperationView;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs operations on virtual threads and records their progress and outcome in the store. Each
 * running operation is leased by this process and the lease renewed while it runs; an operation
 * whose lease lapsed belongs to a process that died, and is resumed (resumable kinds) or failed
 * with a clear error, so nothing stays {@code running} forever.
 */
public final class Operations implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Operations.class);

    private final Jdbi jdbi;
    private final OperationStore store;
    private final Clock clock;
    private final Duration lease;
    private final Map<String, OperationKind> kinds = new ConcurrentHashMap<>();
    private final String owner = Ids.next();
    private final ExecutorService workers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("operation-", 0).factory());
    private final ScheduledExecutorService heartbeat =
            Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("operation-leases").factory());
    private final Map<String, Thread> running = new ConcurrentHashMap<>();
    private final Object changes = new Object();
    private volatile boolean closing;

    public Operations(Jdbi jdbi, OperationStore store, Clock clock, Duration lease, List<OperationKind> kinds) {
        this.jdbi = jdbi;
        this.store = store;
        this.clock = clock;
        this.lease = lease;
        kinds.forEach(this::register);
    }

    /** Adds a kind of work; features register theirs before {@link #start}. */
    public void register(OperationKind kind) {
        kinds.put(kind.name(), kind);
    }

    /**
     * Takes over what dead processes left running, then keeps leases fresh. {@code soleProcess}:
     * no other process can share this store (SQLite), so every running operation is an orphan now.
     */
    public void start(boolean soleProcess) {
        recover(soleProcess);
        long period = Math.max(100, lease.toMillis() / 3);
        heartbeat.scheduleWithFixedDelay(this::beat, period, period, TimeUnit.MILLISECONDS);
    }

    /** Records a new running operation and starts its work. */
    public Operation begin(String kind, String workspace, String resource, JsonNode input) {
        if (!kinds.containsKey(kind)) {
            throw new IllegalArgumentException("no operation kind " + kind);
        }
        Instant now = now();
        var op = new Operation(Ids.next(), kind, OperationState.RUNNING, workspace, resource, input, null, null, 1,
                now, now, null);
        jdbi.useTransaction(h -> store.insert(h, op, owner, now.plus(lease)));
        launch(op);
        return op;
    }

    /** Whether an operation on this resource is running, here or left by a stopped process to resume. */
    public boolean runningFor(String resource) {
        return jdbi.withHandle(h -> store.runningFor(h, resource));
    }

    /** The running operation of {@code kind} on the resource, if one runs. */
    public Optional<Operation> running(String resource, String kind) {
        return jdbi.withHandle(h -> store.running(h, resource, kind));
    }

    public Page<OperationView> list(String workspace, OperationStore.Filter filter, PageRequest page) {
        var rows = jdbi.withHandle(h -> store.page(h, workspace, filter, page));
        return Page.of(rows, page.limit(), Operation::id).map(Operation::view);
    }

    public Operation get(String id) {
        return jdbi.withHandle(h -> store.find(h, id)).orElseThrow(() -> ApiException.notFound("operation " + id));
    }

    /** The operation once it is no longer running, or as it is when {@code wait} runs out. */
    public Operation await(String id, Duration wait) {
        Instant deadline = Instant.now().plus(wait);
        var op = get(id);
        while (op.state() == OperationState.RUNNING && Instant.now().isBefore(deadline)) {
            synchronized (changes) {
                try {
                    // Woken at once by work finishing here; the timeout catches other processes' work.
                    changes.wait(Math.max(1, Math.min(250, Duration.between(Instant.now(), deadline).toMillis())));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return op;
                }
            }
            op = get(id);
        }
        return op;
    }

    private void launch(Operation op) {
        workers.submit(() -> {
            running.put(op.id(), Thread.currentThread());
            try {
                finish(op, outcome(op));
            } finally {
                running.remove(op.id());
            }
        });
    }

    private OperationError outcome(Operation op) {
        try {
            kinds.get(op.kind()).run(work(op));
            return null;
        } catch (OperationKind.Failure f) {
            return new OperationError(f.code(), f.getMessage());
        } catch (InterruptedException e) {
            return closing ? null : new OperationError("interrupted", "the work was interrupted");
        } catch (Exception e) {
            LOG.warn("operation {} ({}) failed", op.id(), op.kind(), e);
            return new OperationError("internal", op.kind() + " failed: " + e.getMessage());
        }
    }

    private void finish(Operation op, OperationError error) {
        if (closing) {
            // Shutting down: leave it running under our lease; the next start takes it over.
            return;
        }
        var state = error == null ? OperationState.SUCCEEDED : OperationState.FAILED;
        jdbi.useTransaction(h -> store.complete(h, op.id(), owner, state, error, now()));
        signal();
    }

    private OperationKind.Work work(Operation op) {
        return new OperationKind.Work() {
            @Override
            public String operationId() {
                return op.id();
            }

            @Override
            public String workspace() {
                return op.workspace();
            }

            @Override
            public String resource() {
                return op.resource();
            }

            @Override
            public JsonNode input() {
                return op.input();
            }

            @Override
            public void progress(String message) {
                jdbi.useTransaction(h -> store.progress(h, op.id(), message, now()));
            }
        };
    }

    private void beat() {
        try {
            jdbi.useTransaction(h -> store.renewLeases(h, owner, now().plus(lease)));
            recover(false);
        } catch (RuntimeException e) {
            LOG.warn("renewing operation leases failed; will retry", e);
        }
    }

    private void recover(boolean all) {
        Instant now = now();
        for (var op : jdbi.withHandle(h -> store.orphans(h, owner, now, all))) {
            if (!jdbi.inTransaction(h -> store.claim(h, op, owner, now.plus(lease)))) {
                continue;
            }
            var kind = kinds.get(op.kind());
            if (kind != null && kind.resumable()) {
                LOG.info("resuming operation {} ({}), left running by a stopped process", op.id(), op.kind());
                launch(op);
            } else {
                LOG.warn("operation {} ({}) was running when its process stopped; marking it failed", op.id(), op.kind());
                jdbi.useTransaction(h -> store.complete(h, op.id(), owner, OperationState.FAILED,
                        new OperationError("interrupted", "hearth serve stopped while this operation ran; "
                                + "it was not completed, retry it"), now()));
                signal();
            }
        }
    }

    private void signal() {
        synchronized (changes) {
            changes.notifyAll();
        }
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }

    /** Stops taking work; running work is interrupted and left to the next start to resume or fail. */
    @Override
    public void close() {
        closing = true;
        heartbeat.shutdownNow();
        running.values().forEach(Thread::interrupt);
        workers.shutdownNow();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
