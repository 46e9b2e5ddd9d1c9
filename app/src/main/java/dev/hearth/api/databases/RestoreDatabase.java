package dev.hearth.api.databases;

import dev.hearth.api.Required;

/** The body of {@code POST /databases/{db}/restore}. */
public record RestoreDatabase(@Required String at) {
}
