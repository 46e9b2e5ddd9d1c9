package dev.hearth.server.checkpoints;

import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.server.http.Reply;
import dev.hearth.server.operations.Operation;
import java.util.List;
import java.util.Map;

/** A checkpoint and the operation that makes or deletes it: the answer of create and delete, for computers and databases. */
public record Accepted(Checkpoint checkpoint, Operation operation) {
    /** The body of the 202: {@code {checkpoint, operations: [id]}}. */
    public Map<String, Object> body() {
        return Reply.one("checkpoint", checkpoint, List.of(operation.id()));
    }
}
