package dev.hearth.api.computers;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.hearth.api.Required;

public record PortSpec(@Required Integer target, Integer published, String protocol,
                       @JsonProperty("private") Boolean privateAccess) {
}
