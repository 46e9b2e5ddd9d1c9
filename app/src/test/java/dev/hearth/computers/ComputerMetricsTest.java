package dev.hearth.computers;

import static dev.hearth.support.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a computer uses, read from its sandbox's cgroup and its disk, moving as work inside it does. */
@HearthServerTest(computers = true)
class ComputerMetricsTest {
    @Injected
    private HearthClient admin;

    private JsonNode metrics(String id) {
        return admin.get("/computers/" + id + "/metrics").path("metrics");
    }

    @Test
    void cpuMemoryAndDiskFollowWhatTheComputerDoes() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        String id = TestComputers.create(admin, ws, "busy", "hearth/busybox", Map.of("resources", Map.of("disk_mb", 256)))
                .path("id").asText();
        var before = metrics(id);
        assertEquals(id, before.path("computer").asText());
        assertEquals("ready", before.path("state").asText());
        assertEquals(256L << 20, before.path("disk_size_bytes").asLong(), 256L << 20 >> 3, before.toString());

        TestComputers.run(admin, id, "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; "
                + "head -c 64000000 /dev/zero > /dev/held; head -c 20000000 /dev/urandom > /data/blob; sync");
        var after = metrics(id);
        var started = admin.create("/computers/" + id + "/processes", Map.of("command", List.of("sleep", "300")))
                .path("process");
        assertEquals(after.path("processes").asInt() + 1, metrics(id).path("processes").asInt(),
                "a background process counts: " + after);
        admin.post("/computers/" + id + "/processes/" + started.path("pid").asText() + "/signal", Map.of("signal", "KILL"));
        assertTrue(after.path("cpu_seconds").asDouble() > before.path("cpu_seconds").asDouble() + 0.05,
                "the loop's CPU shows: " + before + " -> " + after);
        assertTrue(after.path("memory_bytes").asLong() > before.path("memory_bytes").asLong() + (32L << 20),
                "64 MB in /dev (a tmpfs, memory in gVisor) shows: " + before + " -> " + after);
        assertTrue(after.path("disk_used_bytes").asLong() > before.path("disk_used_bytes").asLong() + (15L << 20),
                "20 MB on /data shows: " + before + " -> " + after);

        var slept = admin.post("/computers/" + id + "/sleep", Map.of());
        if (slept.path("operations").size() > 0) {
            admin.get("/operations/" + slept.path("operations").get(0).asText() + "?wait=60");
        }
        var asleep = metrics(id);
        assertEquals("sleeping", asleep.path("state").asText());
        assertTrue(asleep.path("cpu_seconds").isNull() && asleep.path("memory_bytes").isNull()
                && asleep.path("processes").isNull(), asleep.toString());
        assertTrue(asleep.path("disk_used_bytes").asLong() >= after.path("disk_used_bytes").asLong() - (1L << 20),
                "the disk keeps its bytes asleep: " + asleep);
        admin.delete("/computers/" + id);
        var gone = admin.send("GET", "/computers/" + id + "/metrics", null, Map.of());
        assertEquals(409, gone.status(), "a deleted computer uses nothing: " + gone.body());
        assertEquals("conflict", gone.body().path("error").path("code").asText());
    }

    @Test
    void aDebianComputerIsMeasuredTheSameWay() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        String image = TestImages.debian();
        TestComputers.pull(admin, ws, image);
        String id = TestComputers.create(admin, ws, "glibc", image, Map.of("resources", Map.of("disk_mb", 256)))
                .path("id").asText();
        var before = metrics(id);
        TestComputers.run(admin, id, "python3 -c \"open('/data/blob', 'wb').write(bytes(20000000))\" && sync");
        var after = metrics(id);
        assertTrue(after.path("cpu_seconds").asDouble() > 0 && after.path("memory_bytes").asLong() > 0, after.toString());
        assertTrue(after.path("disk_used_bytes").asLong() > before.path("disk_used_bytes").asLong() + (15L << 20),
                "20 MB written by python3 on /data shows: " + before + " -> " + after);
        var started = admin.create("/computers/" + id + "/processes", Map.of("command",
                List.of("bash", "-c", "sleep 300 & sleep 300 & wait"))).path("process");
        int expected = after.path("processes").asInt() + 3;
        // bash forks its children after it is started
        int counted = eventually(Duration.ofSeconds(5), () -> metrics(id).path("processes").asInt(),
                n -> n == expected);
        assertEquals(expected, counted, "bash and its two children count: " + after);
        admin.post("/computers/" + id + "/processes/" + started.path("pid").asText() + "/signal", Map.of("signal", "KILL"));
        admin.delete("/computers/" + id);
    }
}
