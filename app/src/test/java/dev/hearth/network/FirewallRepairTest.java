package dev.hearth.network;

import static dev.hearth.support.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient;
import dev.hearth.server.network.ComputerNetwork;
import dev.hearth.server.network.DirectPorts;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestHost;
import dev.hearth.support.TestServer;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a firewall reload does to Hearth's rules, done by hand: its table deleted, a computer's chain
 * emptied, the databases' forwarding table deleted. Hearth notices within seconds and puts them back (egress returns, the policy holds, the
 * host stays closed), and a create while the table is gone still makes a working computer. Only
 * Hearth's own table is touched, never the host's ruleset.
 */
@HearthServerTest(computers = true, databases = true)
class FirewallRepairTest {
    private static final Duration REPAIR = Duration.ofSeconds(15);
    private static final String HELLO = "hello from the test host";
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private TestHost outside;
    private String ws;
    private String table;

    @BeforeAll
    void start(@TempDir Path tmp) throws Exception {
        outside = TestHost.start(tmp.resolve("outside"));
        ws = TestServer.workspace(admin).path("id").asText();
        table = ComputerNetwork.tableFor(server.dataDir);
    }

    @AfterAll
    void stop() throws Exception {
        outside.close();
    }

    @Test
    void aDeletedTableIsPutBackAndTheHostStaysClosed() throws Exception {
        String id = TestComputers.create(admin, ws, "reloaded", "hearth/busybox", Map.of()).path("id").asText();
        assertEquals(HELLO, get(id, TestHost.ADDRESS, TestHost.PORT));
        nft("delete table inet " + table);
        long deleted = System.nanoTime();
        assertTrue(eventually(REPAIR, () -> nft("list table inet " + table).contains("chain forward")),
                "the table is put back");
        System.out.printf("firewall table put back %d ms after it was deleted%n", (System.nanoTime() - deleted) / 1_000_000);
        assertEquals(HELLO, get(id, TestHost.ADDRESS, TestHost.PORT), "egress works again");
        assertHostClosed(id);
    }

    @Test
    void theHostStaysClosedBetweenTheLossOfTheTableAndItsRepair() throws Exception {
        String id = TestComputers.create(admin, ws, "knocking", "hearth/busybox", Map.of()).path("id").asText();
        String netns = "hearth-" + slotOf(id);
        assertEquals(0, new ProcessBuilder("ip", "netns", "exec", netns, "nft", "list", "table", "netdev", "hearth_guard")
                .start().waitFor(), "the guard is in the computer's own namespace");
        try (var service = new ServerSocket(0)) {
            Thread.ofVirtual().start(() -> {
                while (!service.isClosed()) {
                    try (var s = service.accept()) {
                        s.getOutputStream().write("host service\n".getBytes());
                    } catch (Exception ignored) {
                        // closed
                    }
                }
            });
            String gateway = TestComputers.run(admin, id, "ip route | awk '/default/ {print $3}'");
            // Ten loops knocking at the host's ends every ~100 ms for six seconds, across the loss.
            String knock = "rm -f /tmp/breach; for k in 0 1 2 3 4 5 6 7 8 9; do (sleep 0.$k; end=$(($(date +%s) + 6)); "
                    + "while [ $(date +%s) -lt $end ]; do for t in " + gateway + " 169.254.0.1; do "
                    + "nc -w 1 $t " + service.getLocalPort() + " </dev/null 2>/dev/null | grep -q host && echo $t >> /tmp/breach; "
                    + "done; done) & done; wait; echo knocked";
            var knocking = Thread.ofVirtual().start(() -> TestComputers.run(admin, id, knock));
            Thread.sleep(1500);
            nft("delete table inet " + table);
            knocking.join();
            assertTrue(eventually(REPAIR, () -> nft("list table inet " + table).contains("chain forward")));
            assertEquals("", TestComputers.run(admin, id, "cat /tmp/breach 2>/dev/null || true"),
                    "no connection reached the host while Hearth's table was gone");
        }
    }

    @Test
    void aComputersEmptiedChainIsRefilledAndItsPolicyHolds() throws Exception {
        String id = TestComputers.create(admin, ws, "closed-out", "hearth/busybox",
                Map.of("network", Map.of("internet", false))).path("id").asText();
        assertEquals("no answer", get(id, TestHost.ADDRESS, TestHost.PORT));
        String chain = "c" + slotOf(id);
        nft("flush chain inet " + table + " " + chain);
        assertTrue(eventually(REPAIR, () -> chainOf(chain).contains("drop")), "the computer's rules are put back");
        assertEquals("no answer", get(id, TestHost.ADDRESS, TestHost.PORT), "internet: false holds");
    }

    @Test
    void aComputerMadeWhileTheTableIsGoneWorks() throws Exception {
        nft("delete table inet " + table);
        String id = TestComputers.create(admin, ws, "during-loss", "hearth/busybox", Map.of()).path("id").asText();
        assertEquals(HELLO, get(id, TestHost.ADDRESS, TestHost.PORT));
        assertEquals("ready", admin.get("/computers/" + id).path("computer").path("state").asText());
        assertHostClosed(id);
    }

    @Test
    void theDatabasesTableIsPutBackWithItsForwards() throws Exception {
        var made = admin.send("POST", "/workspaces/" + ws + "/databases", Map.of("name", "forwarded"), TestComputers.key());
        assertEquals(201, made.status(), () -> made.body().toString());
        String db = made.body().path("database").path("id").asText();
        assertEquals("1", query(db));
        String databases = "ip " + DirectPorts.tableFor(server.dataDir);
        String before = nft("list table " + databases);
        assertTrue(before.contains(" : "), "an awake database's port is forwarded: " + before);
        nft("delete table " + databases);
        assertEquals(before, eventually(REPAIR, () -> nft("list table " + databases), before::equals),
                "the table comes back with the same forwards");
        assertEquals("1", query(db));
    }

    private String query(String db) {
        var r = admin.send("POST", "/databases/" + db + "/query", Map.of("sql", "select 1"), Map.of());
        assertEquals(200, r.status(), () -> r.body().toString());
        return r.body().path("result").path("rows").path(0).path(0).asText();
    }

    /** A service of the host bound to 0.0.0.0 answers neither at the computer's gateway nor at the services address. */
    private void assertHostClosed(String id) throws Exception {
        try (var service = new ServerSocket(0)) {
            Thread.ofVirtual().start(() -> {
                while (!service.isClosed()) {
                    try (var s = service.accept()) {
                        s.getOutputStream().write("HTTP/1.0 200 OK\r\n\r\nhost service\n".getBytes());
                    } catch (Exception ignored) {
                        // closed
                    }
                }
            });
            String gateway = TestComputers.run(admin, id, "ip route | awk '/default/ {print $3}'");
            for (String target : List.of(gateway, "169.254.0.1")) {
                assertEquals("no answer", get(id, target, service.getLocalPort()), "the host at " + target);
            }
        }
    }

    /** The computer's network slot, from its gateway (169.254.0.0 + 4 * slot + 1). */
    private int slotOf(String id) {
        String[] gateway = TestComputers.run(admin, id, "ip route | awk '/default/ {print $3}'").split("\\.");
        return (Integer.parseInt(gateway[2]) * 256 + Integer.parseInt(gateway[3]) - 1) / 4;
    }

    private String chainOf(String chain) throws Exception {
        return nft("list chain inet " + table + " " + chain);
    }

    private String get(String computer, String host, int port) {
        String script = "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 2 " + host + " " + port
                + " > /tmp/a 2>&1 && grep -q '200 OK' /tmp/a && tail -n 1 /tmp/a || echo 'no answer'";
        var r = admin.send("POST", "/computers/" + computer + "/exec",
                Map.of("command", List.of("sh", "-c", script), "timeout_seconds", 30), Map.of());
        assertEquals(200, r.status(), () -> r.body().toString());
        return r.body().path("stdout").asText().strip();
    }

    private static String nft(String command) throws Exception {
        var p = new ProcessBuilder("sh", "-c", "nft " + command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return out;
    }
}
