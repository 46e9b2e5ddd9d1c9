package dev.hearth.store;

import dev.hearth.server.Config;
import dev.hearth.support.PostgresCluster;
import java.sql.DriverManager;
import java.util.function.UnaryOperator;

/** The store suite on a shared PostgreSQL store, in a throwaway cluster started for this test. */
class PostgresStoreTest extends StoreContract {
    private PostgresCluster cluster;

    @Override
    protected UnaryOperator<Config> store() throws Exception {
        cluster = PostgresCluster.start();
        String url = cluster.createDatabase("hearth_store");
        return c -> c.withStore(url);
    }

    @Override
    protected byte[] everythingStored() throws Exception {
        var dump = new ProcessBuilder(cluster.bin().resolve("pg_dump").toString(), "--data-only",
                cluster.jdbc("hearth_store").replace("jdbc:postgresql://", "postgresql://hearth@")).start();
        byte[] bytes = dump.getInputStream().readAllBytes();
        if (dump.waitFor() != 0) {
            throw new IllegalStateException("pg_dump failed: " + new String(dump.getErrorStream().readAllBytes()));
        }
        return bytes;
    }

    @Override
    protected long rowsNamed(String name) throws Exception {
        try (var c = DriverManager.getConnection(cluster.jdbc("hearth_store"), "hearth", "");
             var s = c.prepareStatement("SELECT COUNT(*) FROM workspaces WHERE name = ?")) {
            s.setString(1, name);
            var rs = s.executeQuery();
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    protected void closeBackend() throws Exception {
        cluster.close();
    }
}
