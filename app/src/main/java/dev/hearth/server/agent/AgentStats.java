package dev.hearth.server.agent;

import java.time.Instant;
import java.util.Optional;

/**
 * What a computer's agent says of it now: the processes it runs (the agent left out) and the
 * processes it ended because the computer was out of memory (gVisor has no OOM killer of its own).
 */
public record AgentStats(int processes, int memoryKills, Optional<Kill> lastMemoryKill) {

    /** A process ended for memory: its pid, command, resident bytes then, and when. */
    public record Kill(long pid, String command, long bytes, Instant at) {
    }
}
