package dev.hearth.api.nodes;

/**
 * The live computers and databases whose rows name this node, and the memory its awake computers
 * are given (a sleeping one's memory is on disk).
 */
public record NodeHosted(long computers, long databases, long computerMemoryBytes) {
    public static final NodeHosted NONE = new NodeHosted(0, 0, 0);
}
