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
        var e = new AgentException(0, "unreachable", agent + " did not answer: " + cause.getMessage());
        e.initCause(cause);
        return e;
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
