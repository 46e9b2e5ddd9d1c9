package dev.hearth.server.tenancy;

import java.time.Instant;

/** A workspace: the unit of ownership and access. Its name is unique among live workspaces. */
public record Workspace(String id, String name, String state, Instant createdAt, Instant updatedAt,
                        Instant deletedAt) {
    public static final String ACTIVE = "active";
}
