package dev.hearth.api.databases;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The body of {@code PATCH /databases/{db}}: what is absent stays as it is. */
public record UpdateDatabase(@JsonProperty("protected") Boolean protectedFlag, Integer autoSleepSeconds,
                             Integer diskMb, Integer historyHours) {
}
