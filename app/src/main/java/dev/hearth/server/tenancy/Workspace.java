package dev.hearth.server.tenancy;

import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Instant;
import java.util.Locale;

/** A workspace: the unit of ownership and access. Its name is unique among live workspaces. */
public record Workspace(String id, String name, State state, Instant createdAt, Instant updatedAt, Instant deletedAt) {

    /** A workspace is active from its creation; deleting one marks it deleted rather than changing its state. */
    public enum State {
        ACTIVE;

        @JsonValue
        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        @Override
        public String toString() {
            return wire();
        }

        public static State of(String wire) {
            return valueOf(wire.toUpperCase(Locale.ROOT));
        }
    }
}
