package dev.hearth.server.sandbox;

/** The limits a running sandbox was started with, from its cgroup: memory, CPUs and processes (as in its spec). */
public record SandboxLimits(long memoryBytes, double cpus, int pids) {
}
