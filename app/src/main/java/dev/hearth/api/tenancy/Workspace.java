package dev.hearth.api.tenancy;

import dev.hearth.api.Required;
import dev.hearth.api.WireName;
import java.time.Instant;

/** A workspace: the unit of ownership and access. Its name is unique among live workspaces. */
public record Workspace(@Required String id, @Required String name, @Required State state, @Required Instant createdAt, Instant updatedAt, Instant deletedAt) {

    /** A workspace is active from its creation; deleting one marks it deleted rather than changing its state. */
    public enum State implements WireName {
        ACTIVE;

        @Override
        public String toString() {
            return wire();
        }

        public static State of(String wire) {
            return WireName.parse(State.class, wire);
        }
    }
}
