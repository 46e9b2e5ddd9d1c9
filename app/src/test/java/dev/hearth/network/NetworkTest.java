package dev.hearth.network;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.server.network.ComputerNetwork;
import dev.hearth.server.network.NetworkSettings;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestDns;
import dev.hearth.support.TestHost;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import java.net.Inet4Address;
import java.net.NetworkInterface;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Computers' networks on real sandboxes with real packets: egress through NAT to a test host of the
 * test's own, the policy and its changes, the host closed, names and connections within a
 * workspace (a sleeping computer woken by a connection), databases by name, and rules that follow
 * computers through restarts and deletes. Traffic goes only to the test host and loopback.
 */
@HearthServerTest(computers = true, databases = true, config = "withTestDns")
class NetworkTest {
    private static TestDns dns;
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private TestHost outside;
    private String ws;
    private String other;
    private String web;

    static UnaryOperator<Config> withTestDns() throws Exception {
        dns = TestDns.start();
        return c -> c.withNetwork(new NetworkSettings(List.of(), List.of(), Optional.of(List.of(dns.address()))));
    }

    @BeforeAll
    void start(@TempDir Path tmp) throws Exception {
        outside = TestHost.start(tmp.resolve("outside"));
        ws = TestServer.workspace(admin).path("id").asText();
        other = TestServer.workspace(admin).path("id").asText();
        web = TestImages.web(tmp);
        TestComputers.pull(admin, ws, web);
    }

    @AfterAll
    void stop() throws Exception {
        outside.close();
        dns.close();
    }

    private JsonNode create(String workspace, String name, Map<String, Object> extra) {
        return TestComputers.create(admin, workspace, name, "hearth/busybox", extra);
    }

    /** Runs a script and answers its stdout (whatever its exit code). */
    private String sh(String computer, String script) {
        var r = admin.send("POST", "/computers/" + computer + "/exec", Map.of("command", List.of("sh", "-c", script),
                "timeout_seconds", 30), Map.of());
        assertEquals(200, r.status(), () -> r.body().toString());
        return r.body().path("stdout").asText();
    }

    /** What an HTTP GET of {@code host:port/path} from the computer answers: the body, or "no answer". */
    private String get(String computer, String host, int port, String path) {
        String out = sh(computer, "printf 'GET " + path + " HTTP/1.0\\r\\n\\r\\n' | nc -w 2 " + host + " " + port
                + " > /tmp/answer 2>&1 && grep -q '200 OK' /tmp/answer && tail -n 1 /tmp/answer || echo 'no answer'");
        return out.strip();
    }

    private void patchNetwork(String computer, Map<String, Object> network) {
        var r = admin.send("PATCH", "/computers/" + computer, Map.of("network", network), Map.of());
        assertEquals(200, r.status(), () -> r.body().toString());
    }

    @Test
    void computersReachTheOutsideThroughNatAndNamesResolve() {
        String id = create(ws, "out", Map.of()).path("id").asText();
        assertEquals(TestHost.GATEWAY, get(id, TestHost.ADDRESS, TestHost.PORT, "/cgi-bin/addr"),
                "the test host sees the host's address: NAT");
        String resolved = sh(id, "nslookup api.example.test; cat /etc/resolv.conf");
        assertTrue(resolved.contains(TestHost.ADDRESS), resolved);
        assertEquals("hello from the test host", get(id, "api.example.test", TestHost.PORT, "/"));
        var shown = admin.get("/computers/" + id).path("computer").path("network");
        assertTrue(shown.path("internet").asBoolean());
        assertEquals(0, shown.path("allow_out").size());
    }

    @Test
    void thePolicyChangesAtOnceOnARunningComputer() {
        String id = create(ws, "policy", Map.of("network", Map.of("internet", false))).path("id").asText();
        assertEquals("no answer", get(id, TestHost.ADDRESS, TestHost.PORT, "/"));
        patchNetwork(id, Map.of("allow_out", List.of("198.51.100.0/24")));
        assertEquals("hello from the test host", get(id, TestHost.ADDRESS, TestHost.PORT, "/"));
        patchNetwork(id, Map.of("deny_out", List.of(TestHost.ADDRESS)));
        assertEquals("no answer", get(id, TestHost.ADDRESS, TestHost.PORT, "/"), "deny_out wins over allow_out");
        patchNetwork(id, Map.of("internet", true, "allow_out", List.of(), "deny_out", List.of()));
        assertEquals("hello from the test host", get(id, TestHost.ADDRESS, TestHost.PORT, "/"));
        var shown = admin.get("/computers/" + id).path("computer").path("network");
        assertEquals("{\"internet\":true,\"allow_out\":[],\"deny_out\":[]}", shown.toString());
    }

    @Test
    void theHostItsPrivateNetworksAndMetadataAreClosed() throws Exception {
        String id = create(ws, "closed", Map.of()).path("id").asText();
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
            String gateway = sh(id, "ip route | awk '/default/ {print $3}'").strip();
            var targets = new ArrayList<>(List.of(gateway, "169.254.0.1", "169.254.169.254"));
            for (var nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                Collections.list(nif.getInetAddresses()).stream().filter(a -> a instanceof Inet4Address)
                        .filter(a -> !a.isLoopbackAddress()).forEach(a -> targets.add(a.getHostAddress()));
            }
            for (String target : targets) {
                assertEquals("no answer", get(id, target, service.getLocalPort(), "/"),
                        "a service of the host bound to 0.0.0.0 must not answer at " + target);
            }
        }
        assertEquals("no answer", get(id, "10.1.2.3", 80, "/"));
        assertEquals("no answer", get(id, "192.168.1.1", 80, "/"));
    }

    @Test
    void computersOfAWorkspaceReachEachOtherByNameAndASleepingOneWakesOnConnect() {
        String a = create(ws, "caller", Map.of()).path("id").asText();
        String b = TestComputers.create(admin, ws, "site", web, Map.of()).path("id").asText();
        String c = create(other, "stranger", Map.of()).path("id").asText();
        String address = sh(a, "nslookup site.internal | awk '/^Address/ {a=$2} END {print a}'").strip();
        assertTrue(address.startsWith("169.254."), address);
        awaitAnswer(a, "site.internal", "hello from the computer");
        assertEquals("hello from the computer", get(a, "site", 8080, "/index.html"), "a bare name is NAME.internal");
        // The agent port of its own computer answers (refused without the secret); another's drops the SYN.
        assertTrue(sh(b, "printf 'GET /health HTTP/1.0\\r\\n\\r\\n' | nc -w 2 127.0.0.1 49983").contains("401"));
        assertEquals("", sh(a, "printf 'GET /health HTTP/1.0\\r\\n\\r\\n' | nc -w 2 site.internal 49983 2>/dev/null"),
                "but not its agent, which answers Hearth only");
        assertTrue(sh(c, "nslookup site.internal 2>&1").contains("NXDOMAIN"), "other workspaces do not resolve it");
        assertEquals("no answer", get(c, address, 8080, "/index.html"), "nor reach it by address");

        var slept = admin.post("/computers/" + b + "/sleep", Map.of());
        assertEquals("sleeping", slept.path("computer").path("state").asText());
        assertEquals("hello from the computer", get(a, "site.internal", 8080, "/index.html"),
                "the first connection wakes it and is answered");
        assertEquals("ready", admin.get("/computers/" + b).path("computer").path("state").asText());
    }

    private void awaitAnswer(String from, String host, String expected) {
        String answer = "";
        for (int i = 0; i < 50 && !answer.equals(expected); i++) {
            answer = get(from, host, 8080, "/index.html");
        }
        assertEquals(expected, answer);
    }

    @Test
    void aWorkspacesDatabasesAreReachedByNameFromItsComputersOnly() {
        String a = create(ws, "app", Map.of()).path("id").asText();
        String c = create(other, "outsider", Map.of()).path("id").asText();
        var db = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "appdb")).path("database");
        var connection = admin.get("/databases/" + db.path("id").asText() + "/connection").path("connection");
        assertEquals("appdb.db.internal", connection.path("internal_host").asText());
        assertTrue(connection.path("internal_uri").asText().contains("@appdb.db.internal:5432/"));
        assertTrue(connection.path("internal_pooler_uri").asText().contains("@appdb.db.internal:6432/"));

        String sslRequest = "(printf '\\000\\000\\000\\010\\004\\322\\026\\057'; sleep 1) | timeout 5 nc %s %d"
                + " | head -c 1";
        assertEquals("S", sh(a, sslRequest.formatted("appdb.db.internal", 5432)), "TLS, and the database woke");
        assertEquals("ready", admin.get("/databases/" + db.path("id").asText()).path("database").path("state").asText());
        assertEquals(List.of(sh(a, "ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1").strip()),
                clientsOfCluster(db.path("id").asText(), a, sslRequest), "awake, it is reached straight, no relay");
        assertEquals("S", sh(a, sslRequest.formatted("appdb.db.internal", 6432)), "the pooler");
        String vip = sh(a, "nslookup appdb.db.internal | awk '/^Address/ {a=$2} END {print a}'").strip();
        assertTrue(sh(c, "nslookup appdb.db.internal 2>&1").contains("NXDOMAIN"));
        assertEquals("", sh(c, sslRequest.formatted(vip, 5432)), "another workspace's computer gets nothing");
        assertEquals("no answer", get(c, "169.254.0.1", 5432, "/"));
    }

    /** The addresses the database's cluster sees connections from while the computer holds one open. */
    private List<String> clientsOfCluster(String database, String computer, String sslRequest) {
        admin.create("/computers/" + computer + "/processes", Map.of("command", List.of("sh", "-c",
                sslRequest.formatted("appdb.db.internal", 5432).replace("sleep 1", "sleep 4"))));
        try {
            Thread.sleep(1000);
            Path pid = server.dataDir.resolve("databases/clusters/" + database + "/data/postmaster.pid");
            String port = Files.readAllLines(pid).get(3).strip();
            var ss = new ProcessBuilder("ss", "-Htn", "state", "established", "( sport = :" + port + " )").start();
            return new String(ss.getInputStream().readAllBytes()).lines()
                    .map(l -> l.strip().split("\\s+")).map(f -> f[f.length - 1].replaceAll(":\\d+$", ""))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void rulesFollowForksRestoresAndRestartsAndADeleteLeavesNone() throws Exception {
        var source = create(ws, "walled", Map.of("network", Map.of("internet", false)));
        String id = source.path("id").asText();
        var checkpoint = admin.create("/computers/" + id + "/checkpoints", Map.of("name", "k1"));
        String op = checkpoint.path("operations").get(0).asText();
        assertEquals("succeeded", admin.get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
        var fork = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "walled-copy",
                "from_checkpoint", checkpoint.path("checkpoint").path("id").asText())).path("computer");
        assertFalse(fork.path("network").path("internet").asBoolean(), "a fork keeps its source's policy");
        assertEquals("no answer", get(fork.path("id").asText(), TestHost.ADDRESS, TestHost.PORT, "/"));

        admin.post("/computers/" + id + "/restore", Map.of("checkpoint", "k1"));
        assertEquals("no answer", get(id, TestHost.ADDRESS, TestHost.PORT, "/"));
        server.restart();
        assertEquals("no answer", get(id, TestHost.ADDRESS, TestHost.PORT, "/"), "rebuilt on start");
        patchNetwork(id, Map.of("internet", true));
        assertEquals("hello from the test host", get(id, TestHost.ADDRESS, TestHost.PORT, "/"));

        String table = ComputerNetwork.tableFor(server.dataDir);
        int slot = slotOf(id);
        admin.delete("/computers/" + id);
        String rules = nft("list", "table", "inet", table);
        assertFalse(rules.contains("hv" + slot + "\""), rules);
        assertFalse(rules.contains("chain c" + slot + " "), rules);
    }

    private int slotOf(String computerId) throws Exception {
        String gateway = sh(computerId, "ip route | awk '/default/ {print $3}'").strip();
        var octets = gateway.split("\\.");
        return (Integer.parseInt(octets[2]) * 256 + Integer.parseInt(octets[3])) / 4;
    }

    private static String nft(String... args) throws Exception {
        var command = new ArrayList<>(List.of("nft"));
        command.addAll(List.of(args));
        var p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return out;
    }

    @Test
    void badPoliciesAreRefusedNamingTheField() {
        var bad = Map.<String, Object>of("name", "bad", "image", "hearth/busybox");
        for (var network : List.<Object>of(Map.of("internet", "yes"), Map.of("allow_out", List.of("300.1.1.1/8")),
                Map.of("deny_out", List.of("2001:db8::/32")), Map.of("allow_out", List.of("10.0.0.0/8")),
                Map.of("deny_out", Collections.nCopies(65, "203.0.113.0/24")), Map.of("bogus", true), "open")) {
            var body = new HashMap<>(bad);
            body.put("network", network);
            var r = admin.send("POST", "/workspaces/" + ws + "/computers", body, TestComputers.key());
            assertError(r, 400, "invalid_request");
            assertTrue(r.body().path("error").path("details").path("fields").fieldNames().next().startsWith("network"),
                    r.body().toString());
        }
    }
}
