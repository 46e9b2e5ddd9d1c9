package dev.hearth.api.databases;

import dev.hearth.api.Required;

/** The body of {@code POST /databases/{db}/pg_databases}; the owner is the owner role unless named. */
public record CreatePgDatabase(@Required String name, String ownerName) {
}
