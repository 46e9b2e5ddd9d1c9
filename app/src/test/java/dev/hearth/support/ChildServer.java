package dev.hearth.support;

import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.server.Config;
import dev.hearth.server.HearthServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A server in a child process, for tests that kill it with SIGKILL: starts on the given data
 * directory and port with the test operation kinds, begins one operation of the named kind, prints
 * its id, and serves until killed.
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
        var op = server.operations().begin(kind, ws, "thing", dev.hearth.api.Json.mapper().readTree("{\"millis\": 1500}"));
        System.out.println("operation " + op.id());
        System.out.flush();
        server.join();
    }
}
