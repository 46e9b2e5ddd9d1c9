package dev.hearth.nodes;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.support.RawWebSocket;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestTerminal;
import dev.hearth.support.TestServer;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Any node answers any request: work on a computer or database of another node is relayed to it,
 * and creates are placed on the node with room, never beyond it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RelayTest {
    // Room for three computers of 2 GiB awake on each node.
    private static final long NODE_MB = 6144;
    private TwoNodes nodes;
    private String ws;

    @BeforeAll
    void start() throws Exception {
        nodes = TwoNodes.start(Optional.of(NODE_MB));
        ws = nodes.ws;
    }

    @AfterAll
    void stop() throws Exception {
        nodes.close();
    }

    @Test
    void everyNodeWorksOnComputersOfEveryNode() throws Exception {
        HearthClient viaA = nodes.a.admin();
        // Created through a, placed on b (a is draining), under one Idempotency-Key: a retry through
        // a answers the same computer, as b kept the key's answer.
        var key = TestComputers.key();
        var body = Map.of("name", "far", "image", "hearth/busybox");
        var made = nodes.on("b", () -> viaA.send("POST", "/workspaces/" + ws + "/computers", body, key));
        assertEquals(201, made.status(), () -> made.body().toString());
        var computer = made.body().path("computer");
        assertEquals("b", computer.path("node").asText());
        String id = computer.path("id").asText();
        var again = viaA.send("POST", "/workspaces/" + ws + "/computers", body, key);
        assertEquals(id, again.body().path("computer").path("id").asText(), again.body().toString());

        assertEquals("hi from b", TestComputers.run(viaA, id, "echo hi from b"));
        var lines = new ArrayList<JsonNode>();
        viaA.streamLines("POST", "/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c",
                "echo one; head -c 300000 /dev/zero | tr '\\0' x; exit 3")), lines::add);
        assertEquals(3, lines.getLast().path("exit_code").asInt(), lines.getLast().toString());

        byte[] bytes = new byte[3 << 20];
        new Random(7).nextBytes(bytes);
        viaA.upload("/computers/" + id + "/files?path=/data/blob", "application/octet-stream",
                () -> new ByteArrayInputStream(bytes));
        try (InputStream in = viaA.download("/computers/" + id + "/files?path=/data/blob")) {
            assertArrayEquals(bytes, in.readAllBytes(), "bytes written and read through a, byte for byte");
        }

        viaA.post("/computers/" + id + "/sleep", Map.of());
        assertEquals("sleeping", viaA.get("/computers/" + id).path("computer").path("state").asText());
        assertEquals("awake", TestComputers.run(viaA, id, "echo awake"));

        var checkpoint = viaA.send("POST", "/computers/" + id + "/checkpoints", Map.of("name", "cp"),
                TestComputers.key());
        assertEquals(202, checkpoint.status(), () -> checkpoint.body().toString());
        String op = checkpoint.body().path("operations").get(0).asText();
        assertEquals("succeeded", viaA.get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
        // The fork is made where its checkpoint's files are: on b, asked of a.
        var fork = viaA.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "far-fork",
                "from_checkpoint", checkpoint.body().path("checkpoint").path("id").asText()), TestComputers.key());
        assertEquals(201, fork.status(), () -> fork.body().toString());
        assertEquals("b", fork.body().path("computer").path("node").asText());
        String forkId = fork.body().path("computer").path("id").asText();
        assertEquals(sha(bytes), TestComputers.run(viaA, forkId, "sha256sum /data/blob | cut -d' ' -f1"));

        viaA.delete("/computers/" + forkId);
        viaA.delete("/computers/" + id);
        assertEquals(0, nodes.b.admin().get("/workspaces/" + ws + "/computers").path("computers").size());
    }

    /**
     * A fork whose checkpoint's node takes no new work (here: draining; or full) is made on another
     * node from a copy of the checkpoint, its memory, overlay and /data, fetched from that node and
     * gone once the fork is made; the checkpoint stays where it was.
     */
    @Test
    void aForkIsMadeElsewhereFromACopyWhenItsCheckpointsNodeHasNoRoom() throws Exception {
        var admin = nodes.a.admin();
        String id = nodes.on("b", () -> TestComputers.create(admin, ws, "origin", "hearth/busybox", Map.of()))
                .path("id").asText();
        String blob = TestComputers.run(admin, id, "head -c 1000000 /dev/urandom > /data/blob; echo kept > /tmp/made;"
                + " sha256sum /data/blob | cut -d' ' -f1");
        var checkpoint = admin.send("POST", "/computers/" + id + "/checkpoints", Map.of("name", "to-copy"),
                TestComputers.key());
        assertEquals(202, checkpoint.status(), () -> checkpoint.body().toString());
        String op = checkpoint.body().path("operations").get(0).asText();
        assertEquals("succeeded", admin.get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
        String checkpointId = checkpoint.body().path("checkpoint").path("id").asText();
        var fork = nodes.on("a", () -> nodes.b.admin().send("POST", "/workspaces/" + ws + "/computers",
                Map.of("name", "copied", "from_checkpoint", checkpointId), TestComputers.key()));
        assertEquals(201, fork.status(), () -> fork.body().toString());
        assertEquals("a", fork.body().path("computer").path("node").asText(), "b took no new work");
        String forkId = fork.body().path("computer").path("id").asText();
        assertEquals(blob + "\nkept", TestComputers.run(admin, forkId,
                "sha256sum /data/blob | cut -d' ' -f1; cat /tmp/made"));
        assertFalse(Files.exists(nodes.a.dataDir.resolve("checkpoints/" + checkpointId)), "the copy is gone from a");
        assertTrue(Files.exists(nodes.b.dataDir.resolve("checkpoints/" + checkpointId)), "the checkpoint stays on b");
        var again = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "at-home",
                "from_checkpoint", checkpointId), TestComputers.key());
        assertEquals("b", again.body().path("computer").path("node").asText(), again.body().toString());
        for (String gone : List.of(forkId, again.body().path("computer").path("id").asText(), id)) {
            admin.delete("/computers/" + gone);
        }
    }

    /** The router of a reaches a computer on b: b's router wakes and reaches it, a checked the caller. */
    @Test
    void everyRouterReachesComputersOfEveryNode() throws Exception {
        var web = nodes.on("b", () -> TestComputers.create(nodes.a.admin(), ws, "far-web", "hearth/busybox", Map.of(
                "command", List.of("httpd", "-f", "-p", "8080", "-h", "/data"),
                "ports", List.of(Map.of("target", 8080, "published", 80), Map.of("target", 8080, "published", 8443,
                        "private", true)))));
        String id = web.path("id").asText();
        nodes.a.admin().upload("/computers/" + id + "/files?path=/data/index.html", "text/plain",
                () -> new ByteArrayInputStream("served by b\n".getBytes()));
        String host = "far-web--" + nodes.wsName + ".localhost";
        for (String node : List.of("a", "b")) {
            String port = nodes.router(node).replaceFirst(".*:", "");
            assertEquals("200 served by b", curl("http://" + host + ":" + port + "/index.html"), "through " + node);
        }
        nodes.a.admin().post("/computers/" + id + "/sleep", Map.of());
        String aRouter = nodes.router("a").replaceFirst(".*:", "");
        assertEquals("200 served by b", curl("http://" + host + ":" + aRouter + "/index.html"), "woken through a");
        // A private port: a checks the caller's token (made for a), b trusts a's word for it.
        String privately = "http://far-web-8443--" + nodes.wsName + ".localhost:" + aRouter + "/index.html";
        assertTrue(curl(privately).startsWith("401 "), "no token, no entry");
        String token = KeyFileTokens.read(nodes.a.dataDir.resolve("admin-key.json")).token(nodes.a.admin()).orElseThrow();
        assertEquals("200 served by b", curl(privately, "-H", "Authorization: Bearer " + token));
        // A relay header that does not verify is refused by the router too.
        String bRouter = nodes.router("b").replaceFirst(".*:", "");
        assertTrue(curl("http://" + host + ":" + bRouter + "/index.html", "-H", "Hearth-Relayed-For: 1:router:00")
                .startsWith("401 "));
        nodes.a.admin().delete("/computers/" + id);
    }

    /**
     * WebSockets cross nodes too: an interactive terminal opened through a's API on a computer of b,
     * and a computer's own WebSocket through a's router.
     */
    @Test
    void webSocketsReachComputersOfEveryNode(@TempDir Path tmp) throws Exception {
        String image = TestImages.web(tmp);
        TestComputers.pull(nodes.b.admin(), ws, image);
        var web = nodes.on("b", () -> TestComputers.create(nodes.a.admin(), ws, "far-socket", image, Map.of(
                "ports", List.of(Map.of("target", 9000)))));
        String id = web.path("id").asText();
        assertEquals("b", web.path("node").asText());
        var terminal = TestTerminal.open(nodes.a, id, "/bin/sh", 80, 24);
        terminal.type("echo relayed-$((40 + 2))\n");
        terminal.await("relayed-42");
        terminal.type("exit 3\n");
        assertEquals("{\"exit_code\":3}", terminal.end());

        String host = "far-socket-9000--" + nodes.wsName + ".localhost";
        int port = Integer.parseInt(nodes.router("a").replaceFirst(".*:", ""));
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            try (var socket = new Socket("127.0.0.1", port)) {
                socket.setSoTimeout(10_000);
                var out = socket.getOutputStream();
                RawWebSocket.upgrade(out, host + ":" + port, "/chat");
                var in = new DataInputStream(socket.getInputStream());
                String head = RawWebSocket.readHead(in);
                if (head.startsWith("HTTP/1.1 502") && System.nanoTime() < deadline) {
                    Thread.sleep(300); // its server in sh is not listening yet
                    continue;
                }
                assertTrue(head.startsWith("HTTP/1.1 101"), head);
                assertEquals("hello", RawWebSocket.readText(in));
                RawWebSocket.sendText(out, "through a");
                assertEquals("echo:through a", RawWebSocket.readText(in));
                break;
            }
        }
        nodes.a.admin().delete("/computers/" + id);
    }

    /** {@code "STATUS BODY"} of a GET with curl, which resolves *.localhost to the loopback address. */
    private static String curl(String url, String... args) throws Exception {
        var command = new ArrayList<>(List.of("curl", "-s", "-m", "30", "-w", "%{http_code}", "-o", "-"));
        command.addAll(List.of(args));
        command.add(url);
        var p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return out.substring(out.length() - 3) + " " + out.substring(0, out.length() - 3).strip();
    }

    @Test
    void aDatabaseOnBIsManagedThroughA() throws Exception {
        var made = nodes.on("b", () -> nodes.a.admin().send("POST", "/workspaces/" + ws + "/databases",
                Map.of("name", "far-db"), TestComputers.key()));
        assertEquals(201, made.status(), () -> made.body().toString());
        assertEquals("b", made.body().path("database").path("node").asText());
        var reset = nodes.a.admin().send("POST", "/databases/far-db/reset_credentials?workspace=" + ws, Map.of(),
                TestComputers.key());
        assertEquals(200, reset.status(), () -> reset.body().toString());
        var connection = reset.body().path("connection");
        String jdbc = "jdbc:postgresql://" + connection.path("host").asText() + ":" + connection.path("port").asInt()
                + "/" + connection.path("database").asText() + "?sslmode=require";
        try (var c = DriverManager.getConnection(jdbc, connection.path("user").asText(),
                connection.path("password").asText()); var rs = c.createStatement().executeQuery("SELECT 41 + 1")) {
            rs.next();
            assertEquals(42, rs.getInt(1));
        }
        assertEquals(200, nodes.a.admin().send("DELETE", "/databases/far-db?workspace=" + ws, null, Map.of()).status());
    }

    @Test
    void onlyNodesRelay() throws Exception {
        var computer = nodes.on("b", () -> TestComputers.create(nodes.b.admin(), ws, "guarded", "hearth/busybox",
                Map.of()));
        try (var client = HttpClient.newHttpClient()) {
            long now = System.currentTimeMillis() / 1000;
            var forged = client.send(HttpRequest.newBuilder(URI.create(nodes.b.baseUrl() + "/computers/"
                            + computer.path("id").asText()))
                    .header("Hearth-Relayed-For", now + ":" + "someone key k:" + "0".repeat(64)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(401, forged.statusCode(), forged.body());
            assertTrue(forged.body().contains("unauthenticated"), forged.body());
            // Nor can anyone but a node hand a computer over: the door for moves wants a node's vouch.
            String id = computer.path("id").asText();
            for (String vouch : List.of("", now + ":node:b:" + "0".repeat(64))) {
                var builder = HttpRequest.newBuilder(URI.create(nodes.a.baseUrl().replaceFirst("/v1$", "")
                        + "/_nodes/computers/" + id + "?from=b")).PUT(HttpRequest.BodyPublishers.ofString("x"));
                if (!vouch.isEmpty()) {
                    builder.header("Hearth-Relayed-For", vouch);
                }
                var handed = client.send(builder.build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(401, handed.statusCode(), handed.body());
            }
            assertEquals("b", nodes.a.admin().get("/computers/" + id).path("computer").path("node").asText());
        }
        nodes.b.admin().delete("/computers/" + computer.path("id").asText());
    }

    /**
     * A request for a computer a relayed lately goes to b at once (a no longer reads the store to
     * learn where it is, nor the caller's key more than every few seconds); b still checks the key
     * on every request, so one revoked meanwhile is refused at once, and so is access to another
     * workspace.
     */
    @Test
    void aRevokedKeyIsRefusedAtOnceThroughARelay() throws Exception {
        var computer = nodes.on("b", () -> TestComputers.create(nodes.b.admin(), ws, "keyed", "hearth/busybox",
                Map.of()));
        String id = computer.path("id").asText();
        var keyFile = nodes.a.admin().create("/workspaces/" + ws + "/access", Map.of("name", "relayed-key",
                "role", "editor")).path("key_file");
        var viaA = nodes.a.keyPrincipal(keyFile);
        for (int i = 0; i < 3; i++) {
            assertEquals("still", TestComputers.run(viaA, id, "echo still"));
        }
        var other = TestServer.workspace(nodes.a.admin()).path("id").asText();
        var elsewhere = nodes.on("b", () -> TestComputers.create(nodes.b.admin(), other, "not-theirs",
                "hearth/busybox", Map.of()));
        // The admin's request teaches a where it is; the key's then goes to b at once, and b refuses it.
        assertEquals("b", nodes.a.admin().get("/computers/" + elsewhere.path("id").asText()).path("computer")
                .path("node").asText());
        assertError(viaA.send("GET", "/computers/" + elsewhere.path("id").asText(), null, Map.of()), 404, "not_found");
        nodes.a.admin().post("/workspaces/" + ws + "/access/" + keyFile.path("principal").asText() + "/revoke_key",
                Map.of());
        var refused = viaA.send("POST", "/computers/" + id + "/exec", Map.of("command", List.of("true")), Map.of());
        assertError(refused, 401, "unauthenticated");
        nodes.b.admin().delete("/computers/" + id);
        nodes.b.admin().delete("/computers/" + elsewhere.path("id").asText());
    }

    /**
     * Fifty creates at once, half through each node, each asking for more than a third of a node:
     * exactly as many succeed as fit, no node is given more than it has, and the rest are told no
     * node has room.
     */
    @Test
    void racingCreatesNeverOverfillANode() throws Exception {
        long room = 0;
        for (var n : nodes.operatorNodes().path("nodes")) {
            room += free(n) / 2048;
        }
        var answers = new ArrayList<Future<HearthClient.Response>>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 50; i++) {
                var via = i % 2 == 0 ? nodes.a.admin() : nodes.b.admin();
                var body = Map.of("name", "race-" + i, "image", "hearth/busybox", "resources", Map.of("memory_mb", 2048));
                answers.add(pool.submit(() -> via.send("POST", "/workspaces/" + ws + "/computers", body,
                        Map.of("Idempotency-Key", UUID.randomUUID().toString()))));
            }
        }
        var made = new ArrayList<String>();
        var placed = new HashMap<String, Integer>();
        for (var answer : answers) {
            var r = answer.get();
            if (r.status() == 201) {
                made.add(r.body().path("computer").path("id").asText());
                placed.merge(r.body().path("computer").path("node").asText(), 1, Integer::sum);
            } else {
                assertError(r, 503, "node_unavailable");
            }
        }
        System.out.println("50 racing creates: room for " + room + ", placed " + placed);
        assertEquals(room, made.size(), "placed: " + placed);
        assertEquals(2, placed.size(), "both nodes took some: " + placed);
        for (var n : nodes.operatorNodes().path("nodes")) {
            assertTrue(free(n) >= 0, "node " + n.path("name").asText() + " is not overfilled: " + n);
        }
        for (String id : made) {
            nodes.a.admin().delete("/computers/" + id);
        }
    }

    private static long free(JsonNode node) {
        return (node.path("capacity").path("memory_bytes").asLong()
                - node.path("hosted").path("computer_memory_bytes").asLong()) >> 20;
    }

    private static String sha(byte[] bytes) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
