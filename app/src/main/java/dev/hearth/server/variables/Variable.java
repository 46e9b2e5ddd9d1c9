package dev.hearth.server.variables;

import dev.hearth.api.Required;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.hearth.server.crypto.Keyring.Sealed;
import java.time.Instant;

/** A named secret of a workspace, as stored: its value only sealed. */
public record Variable(String id, String workspace, String name, Sealed sealed, String createdBy, String updatedBy,
                       Instant createdAt, Instant updatedAt, Instant deletedAt) {

    /** The Variable of the wire. {@code value} is left out for callers who may not read it (viewers). */
    public record View(@Required String id, @Required String workspace, @Required String name, String createdBy, String updatedBy,
                       @Required Instant createdAt, Instant updatedAt, Instant deletedAt,
                       @JsonInclude(JsonInclude.Include.NON_NULL) String value) {
        /** The same without the value: what an idempotent replay keeps. */
        public View redacted() {
            return new View(id, workspace, name, createdBy, updatedBy, createdAt, updatedAt, deletedAt, null);
        }
    }

    /** The associated data of the seal: a ciphertext opens only as this row's value. */
    String associatedData() {
        return "variable:" + id;
    }

    View view(String value) {
        return new View(id, workspace, name, createdBy, updatedBy, createdAt, updatedAt, deletedAt, value);
    }
}
