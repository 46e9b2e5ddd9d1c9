package dev.hearth.server.agent;

/**
 * One running agent: the computer's address, its sandbox (connections are never shared between
 * sandboxes, even on one address) and the secret it answers to.
 */
public record AgentEndpoint(String address, String sandboxId, String secret) {
    /** The agent's port, the same in every computer; Hearth's firewall keeps other computers off it. */
    public static final int PORT = 49983;

    @Override
    public String toString() {
        return "agent of " + sandboxId + " at " + address;
    }

    String url(String path) {
        return "http://" + address + ":" + PORT + path;
    }
}
