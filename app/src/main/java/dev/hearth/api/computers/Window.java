package dev.hearth.api.computers;

/** A terminal's size, in characters. */
public record Window(Integer cols, Integer rows) {
}
