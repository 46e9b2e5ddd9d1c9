package dev.hearth.api.queries;

import dev.hearth.api.Required;
import java.time.Instant;

/** A named SQL statement kept by a workspace. A deleted one keeps its row and frees its name. */
public record SavedQuery(@Required String id, @Required String workspace, @Required String name, @Required String sql,
                         @Required String createdBy, @Required String updatedBy, @Required Instant createdAt,
                         @Required Instant updatedAt, Instant deletedAt) {
}
