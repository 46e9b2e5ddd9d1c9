package dev.hearth.server.computers;

/** What can happen to a computer; {@link Phase}'s table says in which phase. */
public enum Move {
    /** Its first sandbox started (from the image, or restored from a checkpoint for a fork). */
    START,
    /** A command runs in it; a sleeping one is woken first. */
    EXEC,
    /** It goes to sleep, its memory checkpointed to disk. */
    SLEEP,
    /** A sleeping one runs again from its sleep image. */
    WAKE,
    /** Its main process ended and the supervisor starts it again. */
    RESTART,
    /** A checkpoint is taken of it (paused while running, or from its sleep image). */
    CHECKPOINT,
    /** It is rolled back to one of its checkpoints, in place. */
    RESTORE,
    /** It could not start, wake or be restored. */
    FAIL
}
