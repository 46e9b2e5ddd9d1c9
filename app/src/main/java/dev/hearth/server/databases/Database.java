package dev.hearth.server.databases;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.hearth.server.crypto.Keyring;
import dev.hearth.server.operations.Operation;
import java.time.Instant;

/**
 * A database as stored and, without its {@link JsonIgnore}d parts, as shown. {@code dbName} and
 * {@code user} are the names inside the cluster (a branch keeps its source's); {@code password} is
 * sealed with the row's id as associated data.
 */
@JsonPropertyOrder({"id", "workspace", "name", "state", "pending", "engine", "version", "host", "port", "parent",
        "from_checkpoint", "generation", "protected", "auto_sleep_seconds", "error", "created_at", "updated_at",
        "last_active_at", "deleted_at"})
public record Database(String id, String workspace, String name, DatabaseState state, String version, String host, int port,
                       @JsonIgnore String dbName, @JsonIgnore String user, @JsonIgnore Keyring.Sealed password,
                       @JsonIgnore boolean resetPending, @JsonProperty("protected") boolean protectedFlag,
                       int autoSleepSeconds, int generation, String parent, String fromCheckpoint,
                       Operation.Error error, Instant createdAt, Instant updatedAt, Instant lastActiveAt,
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

    public Database withState(DatabaseState newState, Operation.Error newError, Instant now) {
        return new Database(id, workspace, name, newState, version, host, port, dbName, user, password, resetPending,
                protectedFlag, autoSleepSeconds, generation, parent, fromCheckpoint, newError, createdAt, now,
                lastActiveAt, deletedAt);
    }

    public Database withPassword(Keyring.Sealed sealed, boolean pending, Instant now) {
        return new Database(id, workspace, name, state, version, host, port, dbName, user, sealed, pending,
                protectedFlag, autoSleepSeconds, generation, parent, fromCheckpoint, error, createdAt, now,
                lastActiveAt, deletedAt);
    }

    public Database withSettings(boolean protect, int autoSleep, Instant now) {
        return new Database(id, workspace, name, state, version, host, port, dbName, user, password, resetPending,
                protect, autoSleep, generation, parent, fromCheckpoint, error, createdAt, now, lastActiveAt, deletedAt);
    }

    public Database withActivity(Instant at) {
        return new Database(id, workspace, name, state, version, host, port, dbName, user, password, resetPending,
                protectedFlag, autoSleepSeconds, generation, parent, fromCheckpoint, error, createdAt, updatedAt, at,
                deletedAt);
    }

    public Database deleted(DatabaseState newState, Instant now) {
        return new Database(id, workspace, name, newState, version, host, port, dbName, user, password, false, false,
                autoSleepSeconds, generation, parent, fromCheckpoint, error, createdAt, now, lastActiveAt, now);
    }

    /** The associated data that binds the sealed password to this row. */
    @JsonIgnore
    public String associatedData() {
        return "database:" + id;
    }
}
