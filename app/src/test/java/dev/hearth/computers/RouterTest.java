package dev.hearth.computers;

import static dev.hearth.support.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.RawWebSocket;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import java.io.DataInputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The computer router on real sandboxes, driven with curl (which resolves *.localhost to the
 * loopback address, as browsers do) and, for WebSocket, a hand-made client on a plain socket.
 */
@HearthServerTest(computers = true, restarts = {"dies"})
class RouterTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String wsName;
    private String ws;
    private String image;
    private String web;
    private String base;
    private Path tmp;

    @BeforeAll
    void start(@TempDir Path tmp) throws Exception {
        this.tmp = tmp;
        var workspace = TestServer.workspace(admin);
        ws = workspace.path("id").asText();
        wsName = workspace.path("name").asText();
        image = TestImages.web(tmp);
        TestComputers.pull(admin, ws, image);
        var computer = create("web", List.of(Map.of("target", 8080, "published", 80), Map.of("target", 9000),
                Map.of("target", 7000), Map.of("target", 8080, "published", 8443, "private", true)), Map.of());
        web = computer.path("id").asText();
        base = computer.path("url").asText();
        awaitListening(base);
    }

    @Test
    void urlsNameTheComputerAndItsPorts() {
        var computer = admin.get("/computers/" + web).path("computer");
        int port = URI.create(base).getPort();
        assertEquals("http://web--" + wsName + ".localhost:" + port, base);
        var urls = new ArrayList<String>();
        computer.path("ports").forEach(p -> urls.add(p.path("url").asText()));
        assertEquals(List.of(base, "http://web-9000--" + wsName + ".localhost:" + port,
                "http://web-7000--" + wsName + ".localhost:" + port, "http://web-8443--" + wsName + ".localhost:" + port), urls);
        assertTrue(computer.path("ports").get(3).path("private").asBoolean());
    }

    @Test
    void requestsReachTheComputerWithForwardedHeadersAndBodiesStreamBothWays() throws Exception {
        var index = curl(base + "/");
        assertEquals("200", index.status());
        assertEquals("hello from the computer\n", index.body());
        var echo = curl(base + "/cgi-bin/echo");
        assertTrue(echo.body().contains("method=GET"), echo.body());
        assertTrue(echo.body().contains("host=web--" + wsName + ".localhost:"), echo.body());
        assertTrue(echo.body().contains("xff=127.0.0.1"), echo.body());
        assertTrue(echo.body().contains("xfproto=http"), echo.body());
        assertTrue(echo.body().contains("xfhost=web--" + wsName + ".localhost:"), echo.body());

        Path upload = tmp.resolve("upload");
        Files.write(upload, new byte[5 << 20]);
        var posted = curl(base + "/cgi-bin/echo", "--data-binary", "@" + upload);
        assertTrue(posted.body().contains("method=POST"), posted.body());
        assertTrue(posted.body().contains("body=" + (5 << 20)), posted.body());
        var big = curl(base + "/cgi-bin/big", "-o", tmp.resolve("big").toString());
        assertEquals("200", big.status());
        assertEquals(20_000_000L, Files.size(tmp.resolve("big")));
    }

    @Test
    void whatLeadsNowhereAnswersInTheErrorEnvelope() throws Exception {
        int port = URI.create(base).getPort();
        var nothingListens = curl(base.replace("web--", "web-7000--") + "/");
        assertEquals("502", nothingListens.status());
        assertEquals("bad_gateway", error(nothingListens));
        assertEquals("404", curl("http://nope--" + wsName + ".localhost:" + port + "/").status());
        assertEquals("not_found", error(curl("http://web--no-such-workspace.localhost:" + port + "/")));
        assertEquals("404", curl("http://web-1234--" + wsName + ".localhost:" + port + "/").status());
        // The same computer name in another workspace is another computer: never routed to this one.
        String other = TestServer.workspace(admin).path("name").asText();
        assertEquals("404", curl("http://web--" + other + ".localhost:" + port + "/").status());
        assertEquals("404", curl("http://127.0.0.1:" + port + "/").status());
    }

    @Test
    void aComputerThatStaysSilentGetsA504() throws Exception {
        // Another server on this host would reuse these computers' network slots: restart this one instead.
        var normal = server.config().router();
        server.restart(c -> c.withRouter(normal.withTimeout(Duration.ofSeconds(1))));
        try {
            admin = server.admin();
            String url = admin.get("/computers/" + web).path("computer").path("url").asText();
            var silent = curl(url + "/cgi-bin/slow");
            assertEquals("504", silent.status(), silent.body());
            assertEquals("gateway_timeout", error(silent));
        } finally {
            server.restart(c -> c.withRouter(normal));
            admin = server.admin();
            base = admin.get("/computers/" + web).path("computer").path("url").asText();
        }
    }

    @Test
    void privatePortsWantATokenWithARoleInTheWorkspace() throws Exception {
        String url = base.replace("web--", "web-8443--") + "/";
        var anonymous = curl(url);
        assertEquals("401", anonymous.status());
        assertEquals("unauthenticated", error(anonymous));
        var outsider = server.emailLogin("stranger@example.com").path("access_token").asText();
        assertEquals("404", curl(url, "-H", "Authorization: Bearer " + outsider).status());
        String token = server.emailLogin("router-viewer@example.com").path("access_token").asText();
        admin.create("/workspaces/" + ws + "/access", Map.of("email", "router-viewer@example.com", "role", "viewer"));
        var viewer = curl(url, "-H", "Authorization: Bearer " + token);
        assertEquals("200", viewer.status(), viewer.body());
        assertEquals("hello from the computer\n", viewer.body());
        assertEquals("200", curl(base + "/").status(), "the other ports stay public");
    }

    @Test
    void aRequestWakesASleepingComputer() throws Exception {
        var computer = create("napper", List.of(Map.of("target", 8080, "published", 80)), Map.of());
        String id = computer.path("id").asText();
        awaitListening(computer.path("url").asText());
        var slept = admin.send("POST", "/computers/" + id + "/sleep", Map.of(), Map.of());
        assertEquals("sleeping", slept.body().path("computer").path("state").asText());
        var woken = curl(computer.path("url").asText() + "/");
        assertEquals("200", woken.status(), woken.body());
        assertEquals("hello from the computer\n", woken.body());
        assertEquals("ready", admin.get("/computers/" + id).path("computer").path("state").asText());
    }

    @Test
    void aRequestInFlightKeepsAComputerAwakeAndRequestsCountAsActivity() throws Exception {
        var computer = create("busy-web", List.of(Map.of("target", 8080, "published", 80)), Map.of("auto_sleep_seconds", 2));
        String id = computer.path("id").asText();
        awaitListening(computer.path("url").asText());
        var slow = curl(computer.path("url").asText() + "/cgi-bin/slow");
        assertEquals("200", slow.status());
        assertEquals("slept\n", slow.body(), "a 4 s request outlived a 2 s auto-sleep window");
        for (int i = 0; i < 6; i++) {
            assertEquals("200", curl(computer.path("url").asText() + "/").status());
            Thread.sleep(500);
        }
        assertEquals("ready", admin.get("/computers/" + id).path("computer").path("state").asText(),
                "requests every 0.5 s keep it awake");
        String state = eventually(Duration.ofSeconds(10),
                () -> admin.get("/computers/" + id).path("computer").path("state").asText(), "sleeping"::equals);
        assertEquals("sleeping", state, "idle, it sleeps");
    }

    @Test
    void aRequestInFlightWhenTheComputersSandboxDiesAnswers502AtOnceNotAtTheTimeout() throws Exception {
        var computer = create("dies", List.of(Map.of("target", 8080, "published", 80)), Map.of());
        String id = computer.path("id").asText();
        awaitListening(computer.path("url").asText());
        var slow = Executors.newVirtualThreadPerTaskExecutor().submit(() -> curl(computer.path("url").asText()
                + "/cgi-bin/slow"));
        eventually(Duration.ofSeconds(3), () -> TestComputers.run(admin, id, "ps"), out -> out.contains("slow"));
        // As the host's OOM killer ends a sandbox whose gVisor kernel outgrew its room: no reset, no answer.
        for (long pid : AgentHealthTest.sentriesOf(id)) {
            assertEquals(0, new ProcessBuilder("kill", "-KILL", String.valueOf(pid)).start().waitFor());
        }
        var answer = slow.get(); // curl gives up after 30 s; the router's own timeout is 120 s
        assertEquals("502", answer.status(), answer.body());
        assertEquals("bad_gateway", error(answer));
        assertTrue(answer.body().contains("sandbox ended while it answered"), answer.body());
        admin.delete("/computers/" + id);
    }

    @Test
    void webSocketsAreRelayedBothWays() throws Exception {
        var url = URI.create(base.replace("web--", "web-9000--"));
        try (var socket = new Socket("127.0.0.1", url.getPort())) {
            socket.setSoTimeout(10_000);
            var out = socket.getOutputStream();
            RawWebSocket.upgrade(out, url.getHost() + ":" + url.getPort(), "/chat");
            var in = new DataInputStream(socket.getInputStream());
            String head = RawWebSocket.readHead(in);
            assertTrue(head.startsWith("HTTP/1.1 101"), () -> head + new String(RawWebSocket.readAvailable(in), StandardCharsets.UTF_8));
            assertTrue(head.contains(RawWebSocket.ACCEPT), head);
            assertEquals("hello", RawWebSocket.readText(in));
            RawWebSocket.sendText(out, "hi there");
            assertEquals("echo:hi there", RawWebSocket.readText(in));
            RawWebSocket.sendText(out, "again");
            assertEquals("echo:again", RawWebSocket.readText(in));
        }
    }

    @Test
    void portsCanBeChangedWithPatch() throws Exception {
        var computer = create("patched", List.of(), Map.of());
        String id = computer.path("id").asText();
        int port = URI.create(base).getPort();
        String url = "http://patched--" + wsName + ".localhost:" + port;
        assertEquals("404", curl(url).status(), "no ports, no route");
        var patched = admin.patch("/computers/" + id, Map.of("ports", List.of(Map.of("target", 8080, "published", 80))));
        assertEquals(1, patched.path("computer").path("ports").size());
        awaitListening(url);
    }

    @Test
    void namesWithDoubleHyphensStillRouteAndRouterErrorsCarryARequestId() throws Exception {
        String team = "team--" + TestServer.uniqueName("x");
        String teamId = admin.create("/workspaces", Map.of("name", team)).path("workspace").path("id").asText();
        TestComputers.pull(admin, teamId, image);
        var computer = TestComputers.create(admin, teamId, "my--site", image,
                Map.of("ports", List.of(Map.of("target", 8080, "published", 80))));
        int port = URI.create(base).getPort();
        String url = "http://my--site--" + team + ".localhost:" + port;
        assertEquals(url, computer.path("url").asText());
        awaitListening(url);
        var missing = new ProcessBuilder("curl", "-s", "-D", "-", "-o", "/dev/null",
                "http://nobody--" + team + ".localhost:" + port + "/").start();
        String headers = new String(missing.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        missing.waitFor();
        assertTrue(headers.toLowerCase().contains("x-request-id: "), headers);
    }

    // ---- helpers

    private JsonNode create(String name, List<Map<String, Object>> ports, Map<String, Object> extra) {
        var fields = new LinkedHashMap<String, Object>(extra);
        fields.put("ports", ports);
        return TestComputers.create(admin, ws, name, image, fields);
    }

    /** A computer just made starts its web server a moment later: the router answers 502 until then. */
    private static void awaitListening(String url) throws Exception {
        String status = "";
        for (int i = 0; i < 100 && !status.equals("200"); i++) {
            status = curl(url + "/").status();
            if (!status.equals("200")) {
                assertEquals("502", status, "only 'nothing listens yet' is expected");
                Thread.sleep(50);
            }
        }
        assertEquals("200", status);
    }

    record Answer(String status, String body) {
    }

    private static Answer curl(String url, String... args) throws Exception {
        var command = new ArrayList<>(List.of("curl", "-s", "-m", "30", "-w", "\n%{http_code}"));
        command.addAll(List.of(args));
        command.add(url);
        var p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        int cut = out.lastIndexOf('\n');
        return new Answer(out.substring(cut + 1), out.substring(0, cut));
    }

    private static String error(Answer answer) throws Exception {
        return Json.mapper().readTree(answer.body()).path("error").path("code").asText();
    }
}
