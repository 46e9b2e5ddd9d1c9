package dev.hearth.server.agent;

/**
 * The agent refused a request ({@code status} and {@code code} as it sent them: not_found, is_dir,
 * not_dir, exists, no_space, denied, invalid, failed, unauthorized) or could not be reached
 * (status 0, code unreachable).
 */
public final class AgentException extends RuntimeException {
    private final int status;
    private final String code;

    public AgentException(int status, String code, String message) {
        super(message);
        this.status = status;
        this.code = code;
    }

    static AgentException unreachable(AgentEndpoint agent, Throwable cause) {
        var e = new AgentException(0, "unreachable", agent + ": " + reason(cause));
        e.initCause(cause);
        return e;
    }

    /** What a person can read of why: an HTTP client's messages can be a dump of its connection's state. */
    private static String reason(Throwable cause) {
        Throwable root = cause;
        while ((root instanceof java.util.concurrent.ExecutionException || root.getMessage() == null)
                && root.getCause() != null) {
            root = root.getCause();
        }
        String message = root.getMessage();
        if (root instanceof java.util.concurrent.TimeoutException) {
            return "no answer in time (" + message + ")";
        }
        if (message == null || message.length() > 200 || message.contains("@")) {
            return "the connection ended before an answer (" + root.getClass().getSimpleName() + ")";
        }
        return message;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    public boolean unreachable() {
        return status == 0;
    }

    /** Nothing listens on the agent's port: an init without the channel, or one not started yet. */
    public boolean refused() {
        return unreachable() && getCause() instanceof java.net.ConnectException;
    }
}
