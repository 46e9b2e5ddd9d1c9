package dev.hearth.api.databases;

import dev.hearth.api.Required;

/** {@code POST /databases/{db}/query}. */
public record SqlQuery(@Required String sql, Integer maxRows, Integer timeoutSeconds) {
}
