package dev.hearth.server.checkpoints;

import dev.hearth.api.ApiException;
import dev.hearth.api.Json;
import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.checkpoints.CheckpointState;
import dev.hearth.api.checkpoints.SourceType;
import dev.hearth.server.operations.OperationKind;
import dev.hearth.server.operations.Operations;
import dev.hearth.server.store.Constraints;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jdbi.v3.core.Jdbi;

/**
 * The two operation kinds of checkpoints, {@code checkpoint.create} and {@code checkpoint.delete},
 * shared by computers and databases: each operation's resource is a checkpoint, and its
 * {@code source_type} says which handler does the work. Also the rules both sources follow for
 * recording, listing, finding and deleting their checkpoints, so that both answer alike.
 */
public final class CheckpointKinds {
    public static final String CREATE = "checkpoint.create";
    public static final String DELETE = "checkpoint.delete";

    /** The work of one source type, given the operation (whose resource is the checkpoint's id). */
    public interface Handler {
        void make(OperationKind.Work work) throws Exception;

        void delete(OperationKind.Work work) throws Exception;
    }

    private final Jdbi jdbi;
    private final CheckpointStore store;
    private final Operations operations;
    private final Map<SourceType, Handler> handlers = new ConcurrentHashMap<>();

    public CheckpointKinds(Jdbi jdbi, CheckpointStore store, Operations operations) {
        this.jdbi = jdbi;
        this.store = store;
        this.operations = operations;
        // checkpoint.create is not resumed after a crash (reconcile fails it; the user makes it again);
        // checkpoint.delete is: removing files again is harmless.
        operations.register(OperationKind.of(CREATE, false, work -> handler(work).make(work)));
        operations.register(OperationKind.of(DELETE, true, work -> handler(work).delete(work)));
    }

    public void handle(SourceType sourceType, Handler handler) {
        handlers.put(sourceType, handler);
    }

    public CheckpointStore store() {
        return store;
    }

    /**
     * Records a checkpoint ({@code creating}) of source {@code sourceId}, made by {@code withParent}
     * from the source's newest ready checkpoint, and begins its {@code checkpoint.create}; 409 when
     * the source (named {@code sourceLabel}, say "computer web") already has one of that name.
     */
    public Accepted begin(String sourceId, String sourceLabel, String name, Function<String, Checkpoint> withParent) {
        var checkpoint = Constraints.unique(() -> jdbi.inTransaction(h -> {
            var c = withParent.apply(store.newestReady(h, sourceId).orElse(null));
            store.insert(h, c);
            return c;
        }), () -> ApiException.conflict(sourceLabel + " already has a checkpoint named " + name));
        var op = operations.begin(CREATE, checkpoint.workspace(), checkpoint.id(), Json.mapper().createObjectNode());
        return new Accepted(checkpoint, op);
    }

    /** A source's checkpoints, newest first; none once the source is deleted. */
    public Page<Checkpoint> page(String sourceId, boolean sourceDeleted, PageRequest page) {
        if (sourceDeleted) {
            return new Page<>(List.of(), null, false);
        }
        return Page.of(jdbi.withHandle(h -> store.page(h, sourceId, page)), page.limit(), Checkpoint::id);
    }

    /** A checkpoint of the source by id or name, deleted ones too; 404 naming the source otherwise. */
    public Checkpoint find(String sourceId, String sourceLabel, String ref) {
        return jdbi.withHandle(h -> store.find(h, sourceId, ref))
                .orElseThrow(() -> ApiException.notFound("checkpoint " + ref + " of " + sourceLabel));
    }

    /** Marks a checkpoint deleting and begins its {@code checkpoint.delete}; 404 if deleted, 409 while creating. */
    public Accepted delete(Checkpoint checkpoint, String ref) {
        if (checkpoint.deletedAt() != null) {
            throw ApiException.notFound("checkpoint " + ref + " (deleted)");
        }
        if (checkpoint.is(CheckpointState.CREATING)) {
            throw ApiException.conflict("checkpoint " + checkpoint.name() + " is still being made; delete it when "
                    + "its checkpoint.create operation has finished");
        }
        var deleting = checkpoint.is(CheckpointState.DELETING) ? checkpoint : checkpoint.deleting();
        if (!jdbi.inTransaction(h -> store.markDeleting(h, checkpoint.id()))) {
            // A delete already under way (a retry, or two clients at once) is answered, not begun again.
            var running = operations.running(checkpoint.id(), DELETE);
            if (running.isPresent()) {
                return new Accepted(deleting, running.get());
            }
        }
        var op = operations.begin(DELETE, checkpoint.workspace(), checkpoint.id(), Json.mapper().createObjectNode());
        return new Accepted(deleting, op);
    }

    private Handler handler(OperationKind.Work work) {
        var checkpoint = jdbi.withHandle(h -> store.find(h, work.resource()))
                .orElseThrow(() -> new IllegalStateException("checkpoint " + work.resource() + " is not in the store"));
        var handler = handlers.get(checkpoint.sourceType());
        if (handler == null) {
            throw new IllegalStateException("no handler for checkpoints of " + checkpoint.sourceType());
        }
        return handler;
    }
}
