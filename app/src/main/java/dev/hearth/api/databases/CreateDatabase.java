package dev.hearth.api.databases;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.hearth.api.Required;

/** The body of {@code POST /workspaces/{ws}/databases}. */
public record CreateDatabase(@Required String name, String version, String fromCheckpoint, Integer autoSleepSeconds,
                             @JsonProperty("protected") Boolean protectedFlag, Integer diskMb, String fromDatabase,
                             String at, Integer historyHours) {
}
