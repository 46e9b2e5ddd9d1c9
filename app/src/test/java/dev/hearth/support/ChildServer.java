package dev.hearth.support;

import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.server.Config;
import dev.hearth.server.HearthServer;
import java.nio.file.Path;
import java.util.List;
import java.util.ArrayList;
import java.net.ServerSocket;
import java.io.InputStreamReader;
import java.io.BufferedReader;
import java.time.Duration;
import java.util.Map;

/**
 * A server in a child process, for tests that kill it with SIGKILL: starts on the given data
 * directory and port with the test operation kinds, begins one operation of the named kind (or, for
 * "computer", creates a computer that writes /data), prints its id, and serves until killed.
 */
public final class ChildServer {
    private ChildServer() {
    }

    public static void main(String[] args) throws Exception {
        Path dataDir = Path.of(args[0]);
        int port = Integer.parseInt(args[1]);
        String kind = args[2];
        var server = HearthServer.start(Config.defaults(dataDir).withPort(port)
                .withOperations(Duration.ofSeconds(2), TestKinds.all()));
        var admin = new HearthClient(server.baseUrl(), KeyFileTokens.read(dataDir.resolve("admin-key.json")));
        String ws = admin.create("/workspaces", Map.of("name", "killed")).path("workspace").path("id").asText();
        if (kind.equals("computer")) {
            String id = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "survivor", "image", "hearth/busybox"))
                    .path("computer").path("id").asText();
            admin.post("/computers/" + id + "/exec", Map.of("command", java.util.List.of("sh", "-c",
                    "echo acknowledged > /data/f; sleep 100000 > /dev/null 2>&1 &")));
            System.out.println("computer " + id);
            System.out.flush();
            server.join();
            return;
        }
        var op = server.operations().begin(kind, ws, "thing", dev.hearth.api.Json.mapper().readTree("{\"millis\": 1500}"));
        System.out.println("operation " + op.id());
        System.out.flush();
        server.join();
    }

    /** Starts a server in a child process, waits until it has begun its work, and kills it with SIGKILL. */
    public static String startAndKill(Path dataDir, int port, String kind) throws Exception {
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                ChildServer.class.getName(), dataDir.toString(), String.valueOf(port), kind));
        var child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try (var out = new BufferedReader(new InputStreamReader(child.getInputStream()))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith("operation ") || line.startsWith("computer ")) {
                    child.destroyForcibly().waitFor();
                    return line.substring(line.indexOf(' ') + 1);
                }
            }
        }
        throw new AssertionError("the child server never began its operation (exit " + child.waitFor() + ")");
    }

    public static int freePort() throws Exception {
        try (var s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
