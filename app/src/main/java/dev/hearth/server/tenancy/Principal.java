package dev.hearth.server.tenancy;

import dev.hearth.api.tenancy.PrincipalView;
import java.time.Instant;
import java.util.Locale;

/**
 * Someone who can sign in: a person by email, or a script holding a private key. An {@code operator}
 * also runs the server itself: sees and manages its nodes (the admin principal made at first start is one).
 */
public record Principal(String id, Auth auth, String email, String name, String description, String createdBy,
                        Instant createdAt, Instant updatedAt, boolean operator) {
    public enum Auth { EMAIL, KEY }

    public PrincipalView view() {
        return new PrincipalView(id, auth.name().toLowerCase(Locale.ROOT), email, name);
    }
}
