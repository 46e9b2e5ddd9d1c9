package dev.hearth.server.sandbox;

import dev.hearth.server.process.Commands;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The commands running through exec or on a terminal, per sandbox, and ending them all (sleep does). */
public final class RunningExecs {
    // Commands running through exec, per sandbox, as the way to kill each: sleep and checkpoints
    // must not leave one running (a restore fails on an exec's host descriptors).
    private final Map<String, Set<Runnable>> execs = new ConcurrentHashMap<>();

    /** Registers a running exec's killer; the answer unregisters it. */
    public Runnable track(String sandboxId, Runnable killer) {
        execs.computeIfAbsent(sandboxId, k -> ConcurrentHashMap.newKeySet()).add(killer);
        return () -> execs.computeIfPresent(sandboxId, (k, set) -> {
            set.remove(killer);
            return set.isEmpty() ? null : set;
        });
    }

    public boolean busy(String sandboxId) {
        return execs.containsKey(sandboxId);
    }

    /** Kills them until none is left, failing after {@code limit}. */
    public void end(String sandboxId, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        for (int round = 0; execs.containsKey(sandboxId); round++) {
            if (System.nanoTime() > deadline) {
                throw new Commands.Failure("commands started through exec did not end in " + limit);
            }
            if (round % 10 == 0) {
                // Again every second: an exec may have been too young to have written its pid file.
                List.copyOf(execs.getOrDefault(sandboxId, Set.of())).forEach(Runnable::run);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Commands.Failure("interrupted while ending commands");
            }
        }
    }
}
