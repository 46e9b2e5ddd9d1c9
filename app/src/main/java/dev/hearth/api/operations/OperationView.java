package dev.hearth.api.operations;

import dev.hearth.api.Required;
import java.time.Instant;

/** The Operation of the wire. */
public record OperationView(@Required String id, @Required String kind, @Required OperationState state, String workspace,
                            String resource, String progress, OperationError error, @Required Instant createdAt, Instant updatedAt,
                            Instant completedAt) {
}
