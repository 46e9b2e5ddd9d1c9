package dev.hearth.server.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import org.postgresql.Driver;

/**
 * Sessions as the postgres role over a cluster's private Unix socket, through the PostgreSQL JDBC
 * driver: a psql process costs ~40 ms on these machines, a session here a few. Statements are bounded
 * by the server ({@code statement_timeout}), since reads on the socket do not time out.
 */
final class PrivateSessions {
    private static final Driver DRIVER = new Driver();

    /** Work done in one session; its SQL errors reach the caller unchecked. */
    interface Work<T> {
        T run(Connection session) throws SQLException;
    }

    private PrivateSessions() {
    }

    static Connection open(Cluster cluster, Duration limit) throws SQLException {
        return open(cluster, limit, "postgres");
    }

    /** A session in {@code database} (a name PostgreSQL gave, never a user's text in the URL unquoted). */
    static Connection open(Cluster cluster, Duration limit, String database) throws SQLException {
        var properties = new Properties();
        properties.setProperty("user", "postgres");
        properties.setProperty("sslmode", "disable");
        properties.setProperty("gssEncMode", "disable");
        properties.setProperty("socketFactory", UnixSockets.class.getName());
        properties.setProperty("socketFactoryArg",
                cluster.socketDir().resolve(".s.PGSQL." + cluster.port()).toString());
        properties.setProperty("options", "-c statement_timeout=" + limit.toMillis());
        properties.setProperty("ApplicationName", "hearth");
        // The host is the driver's to parse, never reached: the socket factory goes to the socket.
        return DRIVER.connect("jdbc:postgresql://localhost:" + cluster.port() + "/"
                + java.net.URLEncoder.encode(database, java.nio.charset.StandardCharsets.UTF_8), properties);
    }

    static <T> T with(Cluster cluster, Duration limit, Work<T> work) {
        return with(cluster, limit, "postgres", work);
    }

    static <T> T with(Cluster cluster, Duration limit, String database, Work<T> work) {
        try (var session = open(cluster, limit, database)) {
            return work.run(session);
        } catch (SQLException e) {
            throw new IllegalStateException("SQL on the cluster's private socket failed: " + e.getMessage(), e);
        }
    }
}
