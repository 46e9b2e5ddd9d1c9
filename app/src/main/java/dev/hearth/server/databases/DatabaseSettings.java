package dev.hearth.server.databases;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Databases: the host name connections name ({@code publicHost}, also put in the server
 * certificate), the address their ports listen on, the range each database's own port comes
 * from, and the pooler's port (0 picks a free one).
 */
public record DatabaseSettings(String publicHost, String listenHost, int firstPort, int lastPort, int poolerPort) {
    public static final DatabaseSettings DEFAULT = new DatabaseSettings("127.0.0.1", "127.0.0.1", 7400, 7999, 6432);

    /**
     * Where other nodes reach this node's database ports: the listen address, or for a wildcard one
     * the host other nodes reach this node's API at ({@code apiNodeAddress} is host:port).
     */
    public String nodeAddress(String apiNodeAddress) {
        return wildcard(listenHost) ? apiNodeAddress.substring(0, apiNodeAddress.lastIndexOf(':'))
                .replaceAll("^\\[|]$", "") : listenHost;
    }

    static boolean wildcard(String host) {
        try {
            return host.equals("*") || InetAddress.getByName(host).isAnyLocalAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
