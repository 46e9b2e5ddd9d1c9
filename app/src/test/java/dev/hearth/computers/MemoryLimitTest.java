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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Memory bombs in a 256 MiB Debian computer: the process using most memory is ended, not the
 * computer. Each test leaves a file in /tmp (memory, in gVisor) before its bomb and finds it after,
 * so a computer restarted from nothing would fail it; the end shows in the metrics and the log.
 */
@HearthServerTest(computers = true, restarts = {"sunk"})
class MemoryLimitTest {
    @Injected
    private HearthClient admin;
    private String ws;
    private String image;

    @BeforeAll
    void start() throws Exception {
        ws = TestServer.workspace(admin).path("id").asText();
        image = TestImages.debian();
        TestComputers.pull(admin, ws, image);
    }

    @Test
    void aProcessThatGrowsPastTheLimitIsEndedAndTheComputerKeepsItsMemory() {
        String id = computer("grower");
        var r = exec(id, List.of("python3", "-c", "x = []\nwhile True: x.append(b'a' * (4 << 20))"));
        assertEquals(137, r.path("exit_code").asInt(), r::toString);
        assertKept(id);
        var metrics = metrics(id);
        assertEquals(1, metrics.path("memory_kills").asInt(), metrics::toString);
        var last = metrics.path("last_memory_kill");
        assertEquals("python3", last.path("command").asText(), metrics::toString);
        assertTrue(last.path("bytes").asLong() > 128L << 20, metrics::toString);
        String log = eventually(Duration.ofSeconds(5), () -> log(id), l -> l.contains("out of memory"));
        assertTrue(log.contains("hearth: the computer was out of memory: ended process " + last.path("pid").asInt()
                + " (python3)"), log);
    }

    @Test
    void aComputerWhoseSandboxTheHostEndsForMemorySaysSoWhenItRestarts() {
        String id = computer("sunk");
        // One read(2) of 600 MB into one buffer takes more than the host's room at once, before the agent can look.
        admin.send("POST", "/computers/" + id + "/exec", Map.of("command", List.of("dd", "if=/dev/zero", "of=/dev/null",
                "bs=600M", "count=1"), "timeout_seconds", 60), Map.of());
        var error = eventually(Duration.ofSeconds(60), () -> admin.get("/computers/" + id).path("computer").path("error"),
                e -> e.path("code").asText().equals("restarted"));
        assertTrue(error.path("message").asText().contains("the host's memory limit on it (memory_mb and room for "
                + "gVisor's own kernel) was reached, out of memory"), error::toString);
        admin.delete("/computers/" + id);
    }

    @Test
    void aShellLoopStartingChildrenOfEightMegabytesKeepsTheComputer() {
        String id = computer("looper");
        var r = exec(id, List.of("bash", "-c", "for i in $(seq 1 80); do python3 -c 'import time; b = b\"a\" * (8 << 20); "
                + "time.sleep(1000)' & sleep 0.05; done 2>/dev/null; echo loop done"));
        assertEquals("loop done", r.path("stdout").asText().strip(), r::toString);
        assertKept(id);
        assertTrue(metrics(id).path("memory_kills").asInt() > 0, () -> metrics(id).toString());
    }

    @Test
    void aProcessForkingChildrenThatAllocateKeepsTheComputer() {
        String id = computer("forker");
        var r = exec(id, List.of("python3", "-c", "import os, time\nfor i in range(80):\n    if os.fork() == 0:\n"
                + "        b = b'a' * (8 << 20)\n        time.sleep(1000)\n        os._exit(0)\n    time.sleep(0.02)\n"
                + "print('parent done')"));
        assertEquals("parent done", r.path("stdout").asText().strip(), r::toString);
        assertKept(id);
        assertTrue(metrics(id).path("memory_kills").asInt() > 0, () -> metrics(id).toString());
    }

    /** A 256 MiB computer whose main process waits, with a file in its memory (/tmp). */
    private String computer(String name) {
        String id = TestComputers.create(admin, ws, name, image, Map.of("resources", Map.of("memory_mb", 256),
                "command", List.of("sleep", "infinity"))).path("id").asText();
        TestComputers.run(admin, id, "echo kept > /tmp/mark");
        return id;
    }

    private void assertKept(String id) {
        assertEquals("ready", admin.get("/computers/" + id).path("computer").path("state").asText());
        assertEquals("kept", TestComputers.run(admin, id, "cat /tmp/mark"), "the computer kept its memory");
    }

    private JsonNode exec(String id, List<String> command) {
        var r = admin.send("POST", "/computers/" + id + "/exec", Map.of("command", command, "timeout_seconds", 60), Map.of());
        assertEquals(200, r.status(), () -> r.body().toString());
        return r.body();
    }

    private JsonNode metrics(String id) {
        return admin.get("/computers/" + id + "/metrics").path("metrics");
    }

    private String log(String id) {
        var lines = new ArrayList<JsonNode>();
        admin.streamLines("GET", "/computers/" + id + "/logs", null, lines::add);
        var text = new StringBuilder();
        lines.forEach(l -> text.append(l.path("stderr").asText()).append(l.path("stdout").asText()));
        return text.toString();
    }
}
