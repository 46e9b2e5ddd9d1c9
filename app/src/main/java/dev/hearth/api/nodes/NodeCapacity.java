package dev.hearth.api.nodes;

/** The host's memory, cpus and the data directory's disk, as the node measured them at start. */
public record NodeCapacity(long memoryBytes, int cpus, long diskBytes) {
}
