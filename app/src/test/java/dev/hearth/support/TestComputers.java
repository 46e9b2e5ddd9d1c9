package dev.hearth.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.server.sandbox.runsc.RunscRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** What the computer tests do again and again: pull an image, create a computer, run a script, ask runsc. */
public final class TestComputers {
    private TestComputers() {
    }

    /** Pulls {@code reference} into the workspace, so computers of it are created at once (201). */
    public static void pull(HearthClient admin, String ws, String reference) {
        var pulled = admin.send("POST", "/workspaces/" + ws + "/images", Map.of("reference", reference), key());
        String op = pulled.body().path("operations").get(0).asText();
        assertEquals("succeeded", admin.get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
    }

    /** Creates a computer of {@code image} with the extra fields and answers it, ready (201). */
    public static JsonNode create(HearthClient admin, String ws, String name, String image, Map<String, Object> extra) {
        var body = new LinkedHashMap<String, Object>(Map.of("name", name, "image", image));
        body.putAll(extra);
        var r = admin.send("POST", "/workspaces/" + ws + "/computers", body, key());
        assertEquals(201, r.status(), () -> r.body().toString());
        return r.body().path("computer");
    }

    /** Runs {@code sh -c script}, which must succeed; answers its stdout, stripped. */
    public static String run(HearthClient admin, String computer, String script) {
        var r = admin.send("POST", "/computers/" + computer + "/exec", Map.of("command", List.of("sh", "-c", script)), Map.of());
        assertEquals(200, r.status(), () -> r.body().toString());
        assertEquals(0, r.body().path("exit_code").asInt(), () -> r.body().toString());
        return r.body().path("stdout").asText().strip();
    }

    /**
     * Every sandbox runsc knows under {@code root}, id to status ("running", "paused", ...), from its
     * state files: {@code runsc list} waits on a frozen sandbox (a warm sleeper).
     */
    public static Map<String, String> sandboxes(Path root) {
        var sandboxes = new LinkedHashMap<String, String>();
        RunscRuntime.sandboxesUnder(root).forEach((id, status) -> sandboxes.put(id, status.word()));
        return sandboxes;
    }

    /** CPU the sandbox's cgroup has used, in ns: the one count a frozen sandbox cannot move. */
    public static long cpuNanos(Path dataDir, String sandboxId) throws Exception {
        Path root = dataDir.resolve("runsc");
        Path usage = Path.of("/sys/fs/cgroup/cpuacct", RunscRuntime.cgroupParent(root), sandboxId, "cpuacct.usage");
        return Long.parseLong(Files.readString(usage).strip());
    }

    public static Map<String, String> key() {
        return Map.of("Idempotency-Key", UUID.randomUUID().toString());
    }
}
