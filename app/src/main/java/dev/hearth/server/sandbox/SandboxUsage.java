package dev.hearth.server.sandbox;

/** What a running sandbox uses, from its cgroup: CPU time since it started and memory now (the runtime's own included). */
public record SandboxUsage(double cpuSeconds, long memoryBytes) {
}
