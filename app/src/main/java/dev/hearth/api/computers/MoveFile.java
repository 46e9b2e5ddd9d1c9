package dev.hearth.api.computers;

import dev.hearth.api.Required;

/** {@code POST .../files/move}. */
public record MoveFile(@Required String from, @Required String to) {
}
