package dev.hearth.api.computers;

import java.time.Instant;

/** How the main process of the running sandbox ended; the field is null while it runs. */
public record MainExitView(int exitCode, Instant endedAt) {
}
