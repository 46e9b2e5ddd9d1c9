package dev.hearth.api.computers;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.hearth.api.ApiException;

/** What happens when the main process ends. The agent (PID 1) keeps the computer up otherwise. */
public enum Restart {
    ALWAYS("always"), ON_FAILURE("on-failure"), NEVER("never");

    private final String wire;

    Restart(String wire) {
        this.wire = wire;
    }

    @JsonValue
    public String wire() {
        return wire;
    }

    @JsonCreator
    public static Restart of(String wire) {
        for (var r : values()) {
            if (r.wire.equals(wire)) {
                return r;
            }
        }
        throw ApiException.invalidField("restart", "must be always, on-failure or never");
    }
}
