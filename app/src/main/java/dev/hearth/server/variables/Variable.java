package dev.hearth.server.variables;

import dev.hearth.api.variables.VariableView;
import dev.hearth.server.crypto.Keyring.Sealed;
import java.time.Instant;

/** A named secret of a workspace, as stored: its value only sealed. */
public record Variable(String id, String workspace, String name, Sealed sealed, String createdBy, String updatedBy,
                       Instant createdAt, Instant updatedAt, Instant deletedAt) {
    /** The associated data of the seal: a ciphertext opens only as this row's value. */
    String associatedData() {
        return "variable:" + id;
    }

    VariableView view(String value) {
        return new VariableView(id, workspace, name, createdBy, updatedBy, createdAt, updatedAt, deletedAt, value);
    }
}
