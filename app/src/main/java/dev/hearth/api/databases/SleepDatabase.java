package dev.hearth.api.databases;

/** {@code POST /databases/{db}/sleep}: {@code force} is accepted and ignored, as for computers. */
public record SleepDatabase(Boolean force) {
}
