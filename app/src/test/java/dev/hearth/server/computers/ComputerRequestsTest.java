package dev.hearth.server.computers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import dev.hearth.api.ApiException;
import dev.hearth.api.Json;
import dev.hearth.api.Patch;
import dev.hearth.api.computers.CreateComputer;
import dev.hearth.api.computers.EnvValue;
import dev.hearth.api.computers.Restart;
import dev.hearth.api.computers.UpdateComputer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The computer requests as they are bound: absent, null and a value told apart; wrong types refused by field. */
@Tag("unit")
class ComputerRequestsTest {
    private static UpdateComputer patch(String json) throws Exception {
        return Json.mapper().readValue(json, UpdateComputer.class);
    }

    @Test
    void absentKeepsNullClearsAndAValueSets() throws Exception {
        var absent = patch("{}");
        assertEquals(Patch.keep(), absent.autoSleepSeconds());
        assertEquals(Patch.keep(), absent.command());
        assertNull(absent.env());
        var cleared = patch("{\"auto_sleep_seconds\": null, \"command\": null, \"restart\": null, \"expires_at\": null}");
        assertEquals(Patch.clear(), cleared.autoSleepSeconds());
        assertEquals(Patch.clear(), cleared.command());
        assertEquals(Patch.clear(), cleared.restart());
        assertEquals(Patch.clear(), cleared.expiresAt());
        var set = patch("{\"auto_sleep_seconds\": 30, \"command\": [\"sh\", \"-c\", \"x\"], \"restart\": \"on-failure\"}");
        assertEquals(Patch.set(30), set.autoSleepSeconds());
        assertEquals(Patch.set(List.of("sh", "-c", "x")), set.command());
        assertEquals(Patch.set(Restart.ON_FAILURE), set.restart());
        assertEquals(60, Patch.<Integer>keep().apply(60, null, s -> s));
        assertNull(Patch.<Integer>clear().apply(60, null, s -> s));
    }

    @Test
    void envValuesAreStringsOrSecretsAndANullRemovesOnlyInAPatch() throws Exception {
        var create = Json.mapper().readValue("{\"name\": \"a\", \"env\": {\"A\": \"1\", \"B\": {\"secret\": \"db-pass\"}}}",
                CreateComputer.class);
        var env = ((Patch.Set<Map<String, EnvValue>>) create.env()).value();
        assertEquals(new EnvValue.Literal("1"), env.get("A"));
        assertEquals(new EnvValue.Secret("db-pass"), env.get("B"));
        var removal = patch("{\"env\": {\"A\": null}}").env();
        assertNull(EnvValue.checked(removal, true).get("A"));
        var refused = assertThrows(ApiException.class, () -> EnvValue.checked(removal, false));
        assertEquals("env.A: must be a string or {\"secret\": \"variable-name\"}", refused.getMessage());
        var wrong = assertThrows(JsonMappingException.class, () -> patch("{\"env\": {\"PORT\": 8080}}"));
        var cause = assertInstanceOf(ApiException.class, wrong.getCause());
        assertEquals("env.PORT: must be a string or {\"secret\": \"variable-name\"}", cause.getMessage());
    }

    @Test
    void wrongTypesAreRefusedWithTheirField() {
        var seconds = assertThrows(MismatchedInputException.class, () -> patch("{\"auto_sleep_seconds\": \"soon\"}"));
        assertEquals("auto_sleep_seconds", seconds.getPath().getFirst().getFieldName());
        var network = assertThrows(MismatchedInputException.class, () -> patch("{\"network\": {\"internet\": \"yes\"}}"));
        assertEquals("internet", network.getPath().getLast().getFieldName());
        assertThrows(MismatchedInputException.class, () -> patch("{\"labels\": {\"team\": 7}}"));
        assertThrows(MismatchedInputException.class, () -> patch("{\"command\": \"sh\"}"));
    }
}
