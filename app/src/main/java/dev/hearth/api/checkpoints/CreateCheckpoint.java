package dev.hearth.api.checkpoints;

/**
 * The body of {@code POST .../checkpoints}: an optional name, and whether the checkpoint is kept
 * when its computer is deleted (a template new computers are made from).
 */
public record CreateCheckpoint(String name, Boolean keep) {
    public CreateCheckpoint(String name) {
        this(name, null);
    }
}
