package dev.hearth.api.databases;

import dev.hearth.api.Required;

/** A login role of the cluster; {@code owner} for the role its Hearth database's connection names. */
public record DatabaseRole(@Required String name, boolean owner) {
}
