package dev.hearth.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Timestamps on the wire carry exactly milliseconds, as docs/api.md says, whatever precision they came with. */
@Tag("unit")
class WireInstantTest {
    private static String written(String instant) throws Exception {
        return Json.mapper().writeValueAsString(Map.of("at", Instant.parse(instant)));
    }

    @Test
    void everyInstantIsWrittenWithMilliseconds() throws Exception {
        assertEquals("{\"at\":\"2026-11-21T06:01:19.645Z\"}", written("2026-11-21T06:01:19.645Z"));
        assertEquals("{\"at\":\"2026-11-21T06:01:19.000Z\"}", written("2026-11-21T06:01:19Z"), "a whole second");
        assertEquals("{\"at\":\"2026-11-21T06:01:19.645Z\"}", written("2026-11-21T06:01:19.645123456Z"),
                "the agent's nanoseconds are cut, not rounded up past the moment");
        assertEquals(Instant.parse("2026-11-21T06:01:19.645Z"),
                Json.mapper().readValue("\"2026-11-21T06:01:19.645Z\"", Instant.class), "and read back");
    }
}
