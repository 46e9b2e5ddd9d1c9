package dev.hearth.computers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * hearth serve --runsc-platform ptrace: computers' sandboxes run on gVisor's ptrace platform (an idle
 * one costs a fraction of systrap's CPU; docs/benchmarks.md), and what a computer does works the same:
 * commands, /data, sleep and wake, a checkpoint and a restore from it.
 */
@HearthServerTest(config = "ptrace", computers = true)
class RunscPlatformTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;

    UnaryOperator<Config> ptrace() {
        return c -> c.withRunscPlatform(Optional.of("ptrace"));
    }

    @Test
    void aComputerOnThePtracePlatformDoesWhatAnyComputerDoes() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        String id = TestComputers.create(admin, ws, "traced", "hearth/busybox", Map.of()).path("id").asText();
        assertTrue(sandboxArgs().stream().anyMatch(a -> a.contains("--platform=ptrace")), sandboxArgs()::toString);
        assertEquals("kept", exec(id, "echo kept > /data/f; cat /data/f"));
        admin.post("/computers/" + id + "/sleep", Map.of());
        assertEquals("kept", exec(id, "cat /data/f"), "woken by the command");
        var made = admin.create("/computers/" + id + "/checkpoints", Map.of("name", "v1"));
        String op = made.path("operations").get(0).asText();
        assertEquals("succeeded", admin.get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
        exec(id, "echo changed > /data/f");
        admin.post("/computers/" + id + "/restore", Map.of("checkpoint", "v1"));
        assertEquals("kept", exec(id, "cat /data/f"), "restored from its checkpoint");
        admin.delete("/computers/" + id);
    }

    private String exec(String id, String script) {
        var r = admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c", script)));
        assertEquals(0, r.path("exit_code").asInt(), r::toString);
        return r.path("stdout").asText().strip();
    }

    /** The command lines of the runsc processes under this server's runsc root. */
    private List<String> sandboxArgs() throws Exception {
        String root = server.dataDir.resolve("runsc").toString();
        try (var procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().matches("\\d+")).map(p -> {
                try {
                    return Files.readString(p.resolve("cmdline")).replace('\0', ' ');
                } catch (Exception gone) {
                    return "";
                }
            }).filter(c -> c.contains("runsc") && c.contains(root)).toList();
        }
    }
}
