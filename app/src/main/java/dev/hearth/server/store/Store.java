package dev.hearth.server.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The store's connection: a pool, JDBI over it, and the schema migrated by Flyway. SQLite in the
 * data directory by default; PostgreSQL when given a {@code postgresql://} URL so replicas can share
 * it. The same migrations run on both.
 */
public final class Store implements AutoCloseable {
    public enum Dialect { SQLITE, POSTGRESQL }

    private final HikariDataSource pool;
    private final Jdbi jdbi;
    private final Dialect dialect;

    /** How long a request waits for the store before it is told to come back (503 store_unavailable). */
    static final Duration PATIENCE = Duration.ofSeconds(5);

    private Store(HikariDataSource pool, Dialect dialect) {
        this.pool = pool;
        this.dialect = dialect;
        this.jdbi = Jdbi.create(pool);
        if (dialect == Dialect.SQLITE) {
            jdbi.setTransactionHandler(new SerialWrites(jdbi.getTransactionHandler(), PATIENCE));
        }
        Flyway.configure().dataSource(pool).locations("classpath:db/migration").load().migrate();
    }

    /** Whether {@code store} names a PostgreSQL store, which several nodes can share. */
    public static boolean shared(String store) {
        return store != null && (store.startsWith("postgresql://") || store.startsWith("postgres://"));
    }

    /** Opens {@code store}: null or empty for SQLite in {@code dataDir}, or a postgresql:// URL. */
    public static Store open(String store, Path dataDir) {
        if (store == null || store.isBlank() || store.startsWith("sqlite:")) {
            Path file = store == null || store.isBlank() ? dataDir.resolve("hearth.db") : Path.of(store.substring(7));
            return new Store(sqlitePool(file), Dialect.SQLITE);
        }
        if (shared(store)) {
            return new Store(postgresPool(URI.create(store)), Dialect.POSTGRESQL);
        }
        throw new IllegalArgumentException("--store must be a postgresql:// URL or sqlite:PATH, not " + store);
    }

    private static HikariDataSource sqlitePool(Path file) {
        var config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
        // Transactions queue in SerialWrites; this covers single statements outside them, which are short.
        config.setBusyTimeout((int) PATIENCE.toMillis());
        config.enforceForeignKeys(true);
        // Writers take the lock at BEGIN, so a read-then-write transaction never fails to upgrade.
        config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
        var source = new SQLiteDataSource(config);
        source.setUrl("jdbc:sqlite:" + file.toAbsolutePath());
        var hikari = new HikariConfig();
        hikari.setDataSource(source);
        hikari.setMaximumPoolSize(8);
        hikari.setConnectionTimeout(PATIENCE.toMillis());
        hikari.setPoolName("store");
        return new HikariDataSource(hikari);
    }

    private static HikariDataSource postgresPool(URI uri) {
        var hikari = new HikariConfig();
        int port = uri.getPort() < 0 ? 5432 : uri.getPort();
        String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
        hikari.setJdbcUrl("jdbc:postgresql://" + uri.getHost() + ":" + port + uri.getRawPath() + query);
        if (uri.getRawUserInfo() != null) {
            String[] parts = uri.getRawUserInfo().split(":", 2);
            hikari.setUsername(decode(parts[0]));
            if (parts.length == 2) {
                hikari.setPassword(decode(parts[1]));
            }
        }
        hikari.setMaximumPoolSize(16);
        hikari.setConnectionTimeout(PATIENCE.toMillis());
        hikari.setPoolName("store");
        return new HikariDataSource(hikari);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    public Jdbi jdbi() {
        return jdbi;
    }

    /** The connection pool's live numbers (for metrics). */
    public HikariPoolMXBean poolStats() {
        return pool.getHikariPoolMXBean();
    }

    public Dialect dialect() {
        return dialect;
    }

    @Override
    public void close() {
        pool.close();
    }
}
