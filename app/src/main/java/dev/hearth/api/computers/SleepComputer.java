package dev.hearth.api.computers;

/** {@code POST /computers/{cmp}/sleep}: {@code force} is accepted and ignored, as the spec says. */
public record SleepComputer(Boolean force) {
}
