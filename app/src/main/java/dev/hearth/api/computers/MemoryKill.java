package dev.hearth.api.computers;

import java.time.Instant;

/**
 * A process the computer's agent ended because the computer was out of memory (the one using
 * most, as Linux's OOM killer picks), so that the computer lived on: its pid, command, resident
 * bytes at the end, and when.
 */
public record MemoryKill(long pid, String command, long bytes, Instant at) {
}
