package dev.hearth.api.computers;

import dev.hearth.api.Required;

/** {@code POST /computers/{cmp}/restore}: the checkpoint, by id or name. */
public record RestoreComputer(@Required String checkpoint) {
}
