package dev.hearth.server.tenancy;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Optional;

/** A principal's one role in a workspace, weakest first. */
public enum Role {
    VIEWER, EDITOR, ADMIN;

    public boolean atLeast(Role other) {
        return compareTo(other) >= 0;
    }

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Role> parse(String s) {
        for (var r : values()) {
            if (r.wire().equals(s)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }
}
