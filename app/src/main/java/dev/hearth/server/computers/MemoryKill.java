package dev.hearth.server.computers;

import dev.hearth.server.agent.AgentStats;
import java.time.Instant;

/**
 * A process the computer's agent ended because the computer was out of memory (the one using
 * most, as Linux's OOM killer picks), so that the computer lived on: its pid, command, resident
 * bytes at the end, and when.
 */
public record MemoryKill(long pid, String command, long bytes, Instant at) {
    static MemoryKill of(AgentStats.Kill kill) {
        return new MemoryKill(kill.pid(), kill.command(), kill.bytes(), kill.at());
    }
}
