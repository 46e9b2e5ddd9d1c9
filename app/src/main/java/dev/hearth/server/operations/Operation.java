package dev.hearth.server.operations;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Required;
import dev.hearth.api.WireName;
import java.time.Instant;

/** Long work and its outcome, as stored. */
public record Operation(String id, String kind, State state, String workspace, String resource, JsonNode input,
                        String progress, Error error, int attempts, Instant createdAt, Instant updatedAt,
                        Instant completedAt) {

    /** Stored by name (RUNNING), shown by wire name (running). */
    public enum State implements WireName {
        RUNNING, SUCCEEDED, FAILED
    }

    /** Why an operation failed. */
    public record Error(String code, String message) {
    }

    /** The Operation of the wire. */
    public record View(@Required String id, @Required String kind, @Required State state, String workspace,
                       String resource, String progress, Error error, @Required Instant createdAt, Instant updatedAt,
                       Instant completedAt) {
    }

    public View view() {
        return new View(id, kind, state, workspace, resource, progress, error, createdAt, updatedAt, completedAt);
    }
}
