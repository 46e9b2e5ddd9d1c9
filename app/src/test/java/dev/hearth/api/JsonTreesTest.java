package dev.hearth.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The client's JSON without an ObjectMapper reads and writes exactly what the full mapping does. */
@Tag("unit")
class JsonTreesTest {
    private static final String DOCUMENT = """
            {"s":"caf\\u00e9 \\"quoted\\"\\n\\t/","i":42,"l":12345678901,"big":123456789012345678901234567890,
             "d":1.5,"e":-2.5E-3,"t":true,"f":false,"n":null,"a":[1,"two",[],{}],"o":{"nested":{"deep":[null]}}}""";

    @Test
    void readsTheSameTreeAsTheMapper() throws IOException {
        var expected = Json.mapper().readTree(DOCUMENT);
        assertEquals(expected, JsonTrees.read(DOCUMENT));
        assertEquals(expected, JsonTrees.read(DOCUMENT.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void writesWhatTheMapperWrites() throws IOException {
        var tree = Json.mapper().readTree(DOCUMENT);
        assertEquals(Json.mapper().writeValueAsString(tree), JsonTrees.text(tree));
        assertEquals(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(tree), JsonTrees.pretty(tree));
        var body = new LinkedHashMap<String, Object>();
        body.put("name", "box");
        body.put("auto_sleep_seconds", null);
        body.put("cpus", 0.5);
        body.put("memory_mb", 512);
        body.put("size", 10_000_000_000L);
        body.put("exact", new BigDecimal("1.10"));
        body.put("huge", new BigInteger("123456789012345678901234567890"));
        body.put("command", List.of("sh", "-c", "echo \"hi\""));
        body.put("env", Map.of("A", "1"));
        body.put("when", Instant.parse("2026-11-23T10:00:00.5Z"));
        body.put("protected", true);
        assertEquals(Json.mapper().writeValueAsString(body), JsonTrees.text(body));
        assertEquals(Json.mapper().writeValueAsString(body), new String(JsonTrees.bytes(body), StandardCharsets.UTF_8));
    }

    @Test
    void refusesWhatIsNotOneJsonValue() {
        for (var bad : List.of("", "   ", "{\"a\":1} {}", "{\"a\":", "[1,]", "nope")) {
            assertThrows(IOException.class, () -> JsonTrees.read(bad), bad);
            assertThrows(IOException.class, () -> JsonTrees.read(bad.getBytes(StandardCharsets.UTF_8)), bad);
        }
    }

    @Test
    void buildsEmptyContainers() {
        assertEquals("{}", JsonTrees.text(JsonTrees.object()));
        assertEquals("[]", JsonTrees.text(JsonTrees.array()));
        assertEquals("[1,null,\"x\"]", JsonTrees.text(Arrays.asList(1, null, "x")));
    }
}
