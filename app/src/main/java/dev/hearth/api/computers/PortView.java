package dev.hearth.api.computers;

import com.fasterxml.jackson.annotation.JsonProperty;

public record PortView(int published, int target, String protocol,
                       @JsonProperty("private") boolean privateAccess, String url) {
}
