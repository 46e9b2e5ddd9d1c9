package dev.hearth.server.operations;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.operations.OperationError;
import dev.hearth.api.operations.OperationState;
import dev.hearth.api.operations.OperationView;
import java.time.Instant;

/** Long work and its outcome, as stored. */
public record Operation(String id, String kind, OperationState state, String workspace, String resource, JsonNode input,
                        String progress, OperationError error, int attempts, Instant createdAt, Instant updatedAt,
                        Instant completedAt) {
    public OperationView view() {
        return new OperationView(id, kind, state, workspace, resource, progress, error, createdAt, updatedAt, completedAt);
    }
}
