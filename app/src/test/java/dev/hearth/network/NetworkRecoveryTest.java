package dev.hearth.network;

import static dev.hearth.support.HearthServerExtension.assumeComputers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient;
import dev.hearth.server.network.ComputerNetwork;
import dev.hearth.support.ChildServer;
import dev.hearth.support.TestHost;
import dev.hearth.support.TestServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * hearth serve killed with SIGKILL while a computer with a policy runs: the next start rebuilds its
 * rules from the store (the policy holds, a change still applies at once) and drops what was left of
 * computers that are gone.
 */
class NetworkRecoveryTest {

    @BeforeAll
    static void needsComputers() {
        assumeComputers();
    }

    @Test
    void aKilledServerRebuildsTheRulesFromTheStore(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        int port = ChildServer.freePort();
        String id = ChildServer.startAndKill(dir, port, "network").strip();
        String table = ComputerNetwork.tableFor(dir);
        // What a computer deleted behind the server's back would have left: a chain and a map entry.
        nft("add chain inet " + table + " c9999\nadd element inet " + table + " out_by_iif { \"hv9999\" : jump c9999 }\n");
        try (var outside = TestHost.start(tmp.resolve("outside"));
             var restarted = TestServer.startOn(dir, port, c -> c)) {
            var admin = restarted.admin();
            assertEquals("no answer", get(admin, id), "internet: false holds after the restart");
            admin.patch("/computers/" + id, Map.of("network", Map.of("internet", true)));
            assertEquals("hello from the test host", get(admin, id));
            String rules = nft("list table inet " + table);
            assertFalse(rules.contains("hv9999"), rules);
            assertFalse(rules.contains("chain c9999"), rules);
            assertTrue(rules.contains(": jump c"), rules);
        }
    }

    private static String get(HearthClient admin, String id) {
        String script = "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 2 " + TestHost.ADDRESS + " " + TestHost.PORT
                + " > /tmp/a 2>&1 && grep -q '200 OK' /tmp/a && tail -n 1 /tmp/a || echo 'no answer'";
        return admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c", script)))
                .path("stdout").asText().strip();
    }

    private static String nft(String input) throws Exception {
        var p = new ProcessBuilder(input.startsWith("list") ? List.of("sh", "-c", "nft " + input) : List.of("nft", "-f", "-"))
                .redirectErrorStream(true).start();
        if (!input.startsWith("list")) {
            p.getOutputStream().write(input.getBytes());
        }
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return out;
    }
}
