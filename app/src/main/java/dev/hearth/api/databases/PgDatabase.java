package dev.hearth.api.databases;

import dev.hearth.api.Required;

/** A database of the cluster: its name, its owner role, and whether it is the one connections name. */
public record PgDatabase(@Required String name, @Required String ownerName,
                         @com.fasterxml.jackson.annotation.JsonProperty("default") boolean defaultDatabase) {
}
