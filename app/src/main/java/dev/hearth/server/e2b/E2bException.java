package dev.hearth.server.e2b;

/**
 * A failure as E2B answers it: {@code {"code": STATUS, "message": ...}} with that HTTP status (its
 * SDK reads {@code code} from the body: a 404 there is how kill() learns a sandbox is gone).
 */
final class E2bException extends RuntimeException {
    private final int status;
    private final String sandboxId;

    E2bException(int status, String message) {
        this(status, message, null);
    }

    /** A failure about a sandbox that E2B's proxy names in its body ({@code sandboxId}). */
    E2bException(int status, String message, String sandboxId) {
        super(message, null, false, false);
        this.status = status;
        this.sandboxId = sandboxId;
    }

    int status() {
        return status;
    }

    String sandboxId() {
        return sandboxId;
    }

    /** What E2B's proxy answers for a sandbox that is gone, or paused without auto-resume. */
    static E2bException unreachable(String sandboxId, boolean paused) {
        return new E2bException(502, paused ? "The sandbox is paused" : "The sandbox was not found", sandboxId);
    }

    static E2bException notFound(String what) {
        return new E2bException(404, what + " not found");
    }

    static E2bException notOffered(String what) {
        return new E2bException(501, "Hearth does not offer " + what + " (its E2B API covers sandboxes, "
                + "commands, files, pauses, snapshots and forks)");
    }
}
