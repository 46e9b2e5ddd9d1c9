package dev.hearth.server.databases;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.hearth.api.Json;
import dev.hearth.api.databases.DatabaseState;
import dev.hearth.api.operations.OperationError;
import dev.hearth.server.crypto.Keyring;
import java.time.Instant;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The API's JSON of a database, byte for byte: every field but the login, in the order of docs/api.md. */
@Tag("unit")
class DatabaseJsonTest {
    private static final Instant AT = Instant.parse("2026-01-02T03:04:05.678Z");

    @Test
    void aReadyBranchWithAnError() throws Exception {
        var db = new Database("db1", "ws1", "shop", new Database.Placement("local", "16", "db.example", 7401),
                new Database.Login("shop_db", "shop_user", new Keyring.Sealed("k1", "sealed"), true),
                new Database.Lineage("db0", "chk0", 1), new Database.Settings(true, 300, 10240, 24),
                new Database.Status(DatabaseState.READY, new OperationError("crashed", "postgres exited"), AT,
                        AT.plusSeconds(1), AT.plusSeconds(2), null));
        assertEquals("{\"id\":\"db1\",\"workspace\":\"ws1\",\"name\":\"shop\",\"state\":\"ready\",\"pending\":null,"
                + "\"engine\":\"postgres\",\"version\":\"16\",\"host\":\"db.example\",\"port\":7401,\"parent\":\"db0\","
                + "\"from_checkpoint\":\"chk0\",\"generation\":1,\"protected\":true,\"auto_sleep_seconds\":300,\"disk_mb\":10240,\"history_hours\":24,\"node\":\"local\","
                + "\"error\":{\"code\":\"crashed\",\"message\":\"postgres exited\"},"
                + "\"created_at\":\"2026-01-02T03:04:05.678Z\",\"updated_at\":\"2026-01-02T03:04:06.678Z\","
                + "\"last_active_at\":\"2026-01-02T03:04:07.678Z\",\"deleted_at\":null}",
                Json.mapper().writeValueAsString(db));
    }

    @Test
    void aDeletedOneWithoutParents() throws Exception {
        var db = new Database("db2", "ws1", "cart", new Database.Placement("local", "15", "::1", 7402),
                new Database.Login("cart", "cart", new Keyring.Sealed("k1", "sealed"), false),
                new Database.Lineage(null, null, 1), new Database.Settings(false, 0, 0, 24),
                new Database.Status(DatabaseState.SLEEPING, null, AT, AT, null, AT));
        assertEquals("{\"id\":\"db2\",\"workspace\":\"ws1\",\"name\":\"cart\",\"state\":\"sleeping\",\"pending\":null,"
                + "\"engine\":\"postgres\",\"version\":\"15\",\"host\":\"::1\",\"port\":7402,\"parent\":null,"
                + "\"from_checkpoint\":null,\"generation\":1,\"protected\":false,\"auto_sleep_seconds\":0,\"disk_mb\":0,\"history_hours\":24,\"node\":\"local\","
                + "\"error\":null,\"created_at\":\"2026-01-02T03:04:05.678Z\",\"updated_at\":\"2026-01-02T03:04:05.678Z\","
                + "\"last_active_at\":null,\"deleted_at\":\"2026-01-02T03:04:05.678Z\"}",
                Json.mapper().writeValueAsString(db));
    }
}
