package dev.hearth.api.databases;

import dev.hearth.api.Required;

/** The body of {@code POST /databases/{db}/roles}. */
public record CreateDatabaseRole(@Required String name) {
}
