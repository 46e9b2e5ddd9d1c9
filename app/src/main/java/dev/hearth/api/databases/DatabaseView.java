package dev.hearth.api.databases;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.hearth.api.Required;
import dev.hearth.api.operations.OperationError;
import java.time.Instant;

/**
 * The Database of the spec, field for field in the order of docs/api.md: a stored database
 * without its login (the names inside the cluster and the password belong to the connection).
 */
@JsonPropertyOrder({"id", "workspace", "name", "state", "pending", "engine", "version", "host", "port", "parent",
        "from_checkpoint", "generation", "protected", "auto_sleep_seconds", "disk_mb", "history_hours", "node", "error", "created_at", "updated_at",
        "last_active_at", "deleted_at"})
public record DatabaseView(@Required String id, @Required String workspace, @Required String name, @Required DatabaseState state, @Required String version, String host,
                           int port, String parent, String fromCheckpoint, int generation,
                           @JsonProperty("protected") boolean protectedFlag, int autoSleepSeconds, int diskMb, int historyHours,
                           String node, OperationError error, @Required Instant createdAt, Instant updatedAt, Instant lastActiveAt,
                           Instant deletedAt) {
    public static final String ENGINE = "postgres";

    @JsonProperty("engine")
    public String engine() {
        return ENGINE;
    }

    /** Database moves (wake, sleep) take milliseconds and are never left half-done: nothing is pending. */
    @JsonProperty("pending")
    public String pending() {
        return null;
    }
}
