package dev.hearth.store;

import org.junit.jupiter.api.Tag;
import dev.hearth.server.Config;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.sql.DriverManager;
import java.util.function.UnaryOperator;

/** The store suite on the embedded default: SQLite in the data directory. */
@Tag("unit")
class SqliteStoreTest extends StoreContract {
    @Override
    protected UnaryOperator<Config> store() {
        return c -> c;
    }

    @Override
    protected byte[] everythingStored() throws Exception {
        var all = new ByteArrayOutputStream();
        for (String file : new String[] {"hearth.db", "hearth.db-wal"}) {
            var path = server.dataDir.resolve(file);
            if (Files.exists(path)) {
                all.write(Files.readAllBytes(path));
            }
        }
        return all.toByteArray();
    }

    @Override
    protected long rowsNamed(String name) throws Exception {
        try (var c = DriverManager.getConnection("jdbc:sqlite:" + server.dataDir.resolve("hearth.db"));
             var s = c.prepareStatement("SELECT COUNT(*) FROM workspaces WHERE name = ?")) {
            s.setString(1, name);
            var rs = s.executeQuery();
            rs.next();
            return rs.getLong(1);
        }
    }
}
