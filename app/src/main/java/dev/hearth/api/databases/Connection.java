package dev.hearth.api.databases;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * The Connection of the spec: how to reach a database directly ({@code uri}) and through the
 * pooler, and from the computers of its workspace ({@code internal_host}: {@code NAME.db.internal},
 * 5432 to the database and 6432 to the pooler, the same TLS certificate naming it).
 */
@JsonPropertyOrder({"host", "port", "database", "user", "password", "password_status", "reset_pending", "uri",
        "pooler_uri", "ssl_mode", "server_ca", "pooler_port", "internal_host", "internal_uri", "internal_pooler_uri"})
public record Connection(String host, int port, String database, String user, String password, String passwordStatus,
                         boolean resetPending, String uri, String poolerUri, String sslMode, String serverCa,
                         int poolerPort, String internalHost, String internalUri, String internalPoolerUri,
                         @JsonIgnore String poolerDatabase) {
    /** The name computers reach databases under: {@code NAME.db.internal}, on these ports. */
    public static final String INTERNAL_DOMAIN = ".db.internal";
    public static final int INTERNAL_PORT = 5432;
    public static final int INTERNAL_POOLER_PORT = 6432;
    /** What a password reads as for those who may not see it, and in an idempotent replay. */
    public static final String REDACTED = "********";
    // Hearth knows the password it set; one a user sets in SQL is not known until the next reset.
    public static final String TRACKED = "tracked";
    // Another role's password: answered once, when set, and kept nowhere by Hearth.
    public static final String SHOWN_ONCE = "shown_once";
    public static final String SSL_MODE = "require";

    /** {@code user}'s connection to {@code dbName} of the database called {@code name}. */
    public static Connection of(String host, int port, String dbName, String user, String password, String status,
                                boolean resetPending, int poolerPort, String poolerDatabase, String ca, String name) {
        String internal = name + INTERNAL_DOMAIN;
        return new Connection(host, port, dbName, user, password, status,
                resetPending, uri(user, password, host, port, dbName),
                uri(user, password, host, poolerPort, poolerDatabase), SSL_MODE, ca, poolerPort,
                internal, uri(user, password, internal, INTERNAL_PORT, dbName),
                uri(user, password, internal, INTERNAL_POOLER_PORT, poolerDatabase), poolerDatabase);
    }

    /**
     * {@code user}'s connection to a port of its own that neither the pooler nor computers reach (a
     * time travel's): no pooler or internal URIs.
     */
    public static Connection direct(String host, int port, String dbName, String user, String password, String ca) {
        return new Connection(host, port, dbName, user, password, TRACKED, false, uri(user, password, host, port, dbName),
                null, SSL_MODE, ca, 0, null, null, null, null);
    }

    public Connection redacted() {
        if (poolerUri == null) {
            return direct(host, port, database, user, REDACTED, serverCa);
        }
        return new Connection(host, port, database, user, REDACTED, passwordStatus, resetPending,
                uri(user, REDACTED, host, port, database), uri(user, REDACTED, host, poolerPort, poolerDatabase), sslMode,
                serverCa, poolerPort, internalHost, uri(user, REDACTED, internalHost, INTERNAL_PORT, database),
                uri(user, REDACTED, internalHost, INTERNAL_POOLER_PORT, poolerDatabase), poolerDatabase);
    }

    private static String uri(String user, String password, String host, int port, String database) {
        String h = host.contains(":") ? "[" + host + "]" : host;
        return "postgresql://" + encode(user) + ":" + encode(password) + "@" + h + ":" + port + "/" + encode(database)
                + "?sslmode=" + SSL_MODE;
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20").replace("%2A", "*");
    }
}
