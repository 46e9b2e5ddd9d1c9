package dev.hearth.api.variables;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.hearth.api.Required;
import java.time.Instant;

/** The Variable of the wire. {@code value} is left out for callers who may not read it (viewers). */
public record VariableView(@Required String id, @Required String workspace, @Required String name, String createdBy, String updatedBy,
                           @Required Instant createdAt, Instant updatedAt, Instant deletedAt,
                           @JsonInclude(JsonInclude.Include.NON_NULL) String value) {
    /** The same without the value: what an idempotent replay keeps. */
    public VariableView redacted() {
        return new VariableView(id, workspace, name, createdBy, updatedBy, createdAt, updatedAt, deletedAt, null);
    }
}
