package dev.hearth.server.checkpoints;

/** The body of {@code POST .../checkpoints}: an optional name. */
public record CreateCheckpoint(String name) {
}
