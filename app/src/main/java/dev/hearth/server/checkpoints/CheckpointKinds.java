package dev.hearth.server.checkpoints;

import dev.hearth.server.operations.OperationKind;
import dev.hearth.server.operations.Operations;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Jdbi;

/**
 * The two operation kinds of checkpoints, {@code checkpoint.create} and {@code checkpoint.delete},
 * shared by computers and databases: each operation's resource is a checkpoint, and its
 * {@code source_type} says which handler does the work.
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
    private final Map<String, Handler> handlers = new ConcurrentHashMap<>();

    public CheckpointKinds(Jdbi jdbi, CheckpointStore store, Operations operations) {
        this.jdbi = jdbi;
        this.store = store;
        // checkpoint.create is not resumed after a crash (reconcile fails it; the user makes it again);
        // checkpoint.delete is: removing files again is harmless.
        operations.register(OperationKind.of(CREATE, false, work -> handler(work).make(work)));
        operations.register(OperationKind.of(DELETE, true, work -> handler(work).delete(work)));
    }

    public void handle(String sourceType, Handler handler) {
        handlers.put(sourceType, handler);
    }

    public CheckpointStore store() {
        return store;
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
