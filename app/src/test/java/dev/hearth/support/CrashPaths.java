package dev.hearth.support;

import dev.hearth.client.HearthClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Work a {@link ChildServer} starts just before it is killed with SIGKILL: every path that creates or
 * deletes a computer or a database, cut short. Each answers the name of what it was making or removing.
 */
final class CrashPaths {
    // Late enough that the work is under way, early enough that it has not finished (measured here: a
    // busybox computer is made in 0.3 to 0.5 s, a database in about 0.2 s, a delete in 0.1 to 0.2 s).
    private static final long CUT_MILLIS = 250;

    private CrashPaths() {
    }

    static String run(HearthClient admin, String ws, Path dataDir, String path) throws Exception {
        return switch (path) {
            case "create" -> cut(() -> createComputer(admin, ws, "crashy", "hearth/busybox"), "crashy");
            case "create-pulled" -> {
                String image = TestImages.build(Files.createDirectories(dataDir.resolveSibling("image")), "sleep 100000");
                yield cut(() -> createComputer(admin, ws, "pulled", image), "pulled");
            }
            case "fork" -> {
                String source = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "source",
                        "image", "hearth/busybox")).path("computer").path("id").asText();
                admin.post("/computers/" + source + "/exec", Map.of("command", List.of("sh", "-c", "echo forked > /data/f")));
                var checkpoint = admin.create("/computers/" + source + "/checkpoints", Map.of("name", "base"));
                admin.get("/operations/" + checkpoint.path("operations").get(0).asText() + "?wait=60");
                yield cut(() -> admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "fork",
                        "from_checkpoint", "base"), key()), "fork");
            }
            case "delete" -> {
                String id = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "doomed",
                        "image", "hearth/busybox")).path("computer").path("id").asText();
                admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c", "echo kept > /data/f")));
                yield cut(() -> admin.send("DELETE", "/computers/" + id, null, Map.of()), "doomed");
            }
            case "db-create" -> cut(() -> admin.send("POST", "/workspaces/" + ws + "/databases", Map.of("name", "fresh"),
                    key()), "fresh");
            case "db-branch" -> {
                String id = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "trunk")).path("database")
                        .path("id").asText();
                var checkpoint = admin.create("/databases/" + id + "/checkpoints", Map.of("name", "base"));
                admin.get("/operations/" + checkpoint.path("operations").get(0).asText() + "?wait=60");
                yield cut(() -> admin.send("POST", "/workspaces/" + ws + "/databases", Map.of("name", "branch",
                        "from_checkpoint", "base"), key()), "branch");
            }
            case "db-delete" -> {
                String id = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "doomed")).path("database")
                        .path("id").asText();
                yield cut(() -> admin.send("DELETE", "/databases/" + id, null, Map.of()), "doomed");
            }
            default -> throw new IllegalArgumentException(path);
        };
    }

    private static HearthClient.Response createComputer(HearthClient admin, String ws, String name, String image) {
        return admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", name, "image", image), key());
    }

    /** Starts the request and answers once it has run for a moment: the caller is killed right after. */
    private static String cut(Runnable request, String name) throws InterruptedException {
        Thread.ofVirtual().start(request);
        Thread.sleep(CUT_MILLIS);
        return name;
    }

    private static Map<String, String> key() {
        return Map.of("Idempotency-Key", UUID.randomUUID().toString());
    }
}
