package dev.hearth.server.tenancy;

import java.time.Instant;
import java.util.Locale;

/** Someone who can sign in: a person by email, or a script holding a private key. */
public record Principal(String id, Auth auth, String email, String name, String description, String createdBy,
                        Instant createdAt, Instant updatedAt) {

    public enum Auth { EMAIL, KEY }

    /** The principal object of the wire: {@code {id, auth, email, name}}. */
    public record View(String id, String auth, String email, String name) {
    }

    public View view() {
        return new View(id, auth.name().toLowerCase(Locale.ROOT), email, name);
    }
}
