package dev.hearth.api.computers;

/** The JSON answer. Output beyond the cap is dropped and {@code truncated} set. */
public record ExecResult(int exitCode, String stdout, String stderr, boolean timedOut, boolean truncated,
                         long durationMs) {
}
