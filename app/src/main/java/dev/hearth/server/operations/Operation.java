package dev.hearth.server.operations;

import dev.hearth.api.Required;
import dev.hearth.api.WireSchemas;
import dev.hearth.api.WireSchema;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Locale;

/** Long work and its outcome, as stored. */
public record Operation(String id, String kind, State state, String workspace, String resource, JsonNode input,
                        String progress, Error error, int attempts, Instant createdAt, Instant updatedAt,
                        Instant completedAt) {

    public enum State {
        RUNNING, SUCCEEDED, FAILED;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Why an operation failed. */
    public record Error(String code, String message) {
    }

    /** The Operation of the wire. */
    public record View(@Required String id, @Required String kind, @Required @WireSchema(WireSchemas.OPERATION_STATE) String state, String workspace, String resource, String progress,
                       Error error, @Required Instant createdAt, Instant updatedAt, Instant completedAt) {
    }

    public View view() {
        return new View(id, kind, state.wire(), workspace, resource, progress, error, createdAt, updatedAt, completedAt);
    }
}
