package dev.hearth.server.databases;

/**
 * Databases: the host name connections name ({@code publicHost}, also put in the server
 * certificate), the address their ports listen on, the range each database's own port comes
 * from, and the pooler's port (0 picks a free one).
 */
public record DatabaseSettings(String publicHost, String listenHost, int firstPort, int lastPort, int poolerPort) {
    public static final DatabaseSettings DEFAULT = new DatabaseSettings("127.0.0.1", "127.0.0.1", 7400, 7999, 6432);
}
