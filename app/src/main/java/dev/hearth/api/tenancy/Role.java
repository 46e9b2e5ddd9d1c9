package dev.hearth.api.tenancy;

import dev.hearth.api.WireName;
import java.util.Optional;

/** A principal's one role in a workspace, weakest first. */
public enum Role implements WireName {
    VIEWER, EDITOR, ADMIN;

    public boolean atLeast(Role other) {
        return compareTo(other) >= 0;
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
