package dev.hearth.api.computers;

import dev.hearth.api.Required;

/** {@code POST .../processes/{pid}/signal}. */
public record SignalProcess(@Required String signal) {
}
