package dev.hearth.api.databases;

import dev.hearth.api.Required;

/** The body of {@code POST /databases/{db}/time_travels}: the moment to read, and for how long. */
public record OpenTimeTravel(@Required String at, Integer ttlSeconds) {
}
