package dev.hearth.computers;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import dev.hearth.api.Json;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.server.sandbox.runsc.RunscRuntime;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.Registry;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import dev.hearth.support.TestTerminal;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Computers as real gVisor sandboxes (needs root and runsc, which ./run-tests installs). */
@HearthServerTest(computers = true, restarts = {"fragile", "phoenix"})
class ComputersTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeAll
    void start() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    private JsonNode create(String name, Map<String, Object> extra) {
        var body = new LinkedHashMap<String, Object>(Map.of("name", name, "image", "hearth/busybox"));
        body.putAll(extra);
        var r = admin.send("POST", "/workspaces/" + ws + "/computers", body, Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertEquals(201, r.status(), () -> r.body().toString());
        return r.body().path("computer");
    }

    private HearthClient.Response exec(String computer, Map<String, Object> body) {
        return admin.send("POST", "/computers/" + computer + "/exec", body, Map.of());
    }

    private JsonNode run(String computer, String script) {
        var r = exec(computer, Map.of("command", List.of("sh", "-c", script)));
        assertEquals(200, r.status(), () -> r.body().toString());
        return r.body();
    }

    @Test
    void aComputerFromTheBuiltInImageRunsCommands() {
        var c = create("runner", Map.of("env", Map.of("GREETING", "hello")));
        assertEquals("ready", c.path("state").asText());
        assertTrue(c.path("image_digest").asText().startsWith("sha256:"));
        assertEquals(1, c.path("generation").asInt());
        assertFalse(c.path("last_started_at").isNull());
        assertEquals(List.of("GREETING"), List.of(c.path("env_keys").get(0).asText()));
        String id = c.path("id").asText();

        var out = run(id, "echo $GREETING; echo oops >&2; exit 3");
        assertEquals(3, out.path("exit_code").asInt());
        assertEquals("hello\n", out.path("stdout").asText());
        assertEquals("oops\n", out.path("stderr").asText());
        assertFalse(out.path("timed_out").asBoolean());

        var stdin = exec(id, Map.of("command", List.of("wc", "-c"), "stdin", "twelve bytes")).body();
        assertEquals("12", stdin.path("stdout").asText().strip());
        var envCwd = exec(id, Map.of("command", List.of("sh", "-c", "echo $EXTRA; pwd"), "env", Map.of("EXTRA", "x1"),
                "cwd", "/tmp")).body();
        assertEquals("x1\n/tmp\n", envCwd.path("stdout").asText());
        JsonNode active = null;
        for (int i = 0; i < 50 && (active == null || active.isNull()); i++) {
            active = admin.get("/computers/" + id).path("computer").path("last_active_at");
            sleep(100);
        }
        assertFalse(active.isNull(), "an exec counts as activity (recorded within a second)");
    }

    @Test
    void aTimeoutKillsTheWholeProcessTree() {
        String id = create("sleeper", Map.of()).path("id").asText();
        var out = exec(id, Map.of("command", List.of("sh", "-c", "sleep 301 & sleep 302; echo never"), "timeout_seconds", 1)).body();
        assertTrue(out.path("timed_out").asBoolean(), out.toString());
        assertEquals("", out.path("stdout").asText());
        assertFalse(run(id, "ps").path("stdout").asText().contains("sleep 30"), "no process of the timed-out command survives");
    }

    @Test
    void manyConcurrentExecsOnOneComputer() throws Exception {
        String id = create("busy", Map.of()).path("id").asText();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var calls = new ArrayList<Callable<JsonNode>>();
            for (int i = 0; i < 20; i++) {
                int n = i;
                calls.add(() -> run(id, "echo " + n + "; exit " + n));
            }
            var results = pool.invokeAll(calls);
            for (int i = 0; i < 20; i++) {
                var r = results.get(i).get();
                assertEquals(i, r.path("exit_code").asInt());
                assertEquals(i + "\n", r.path("stdout").asText());
            }
        }
    }

    @Test
    void largeOutputIsCappedInJson() {
        String id = create("chatty", Map.of()).path("id").asText();
        var out = run(id, "head -c 3000000 /dev/zero | tr '\\\\0' a");
        assertTrue(out.path("truncated").asBoolean());
        assertEquals(1 << 20, out.path("stdout").asText().length());
    }

    @Test
    void streamingExecDeliversEverythingInOrderUncapped() throws Exception {
        String id = create("streamer", Map.of()).path("id").asText();
        var lines = new ArrayList<JsonNode>();
        admin.streamLines("POST", "/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c",
                "echo first; echo oops >&2; head -c 2000000 /dev/zero | tr '\\0' b; exit 5")), lines::add);
        var last = lines.getLast();
        assertEquals(5, last.path("exit_code").asInt(), last.toString());
        var out = new StringBuilder();
        var err = new StringBuilder();
        lines.forEach(l -> {
            out.append(l.path("stdout").asText(""));
            err.append(l.path("stderr").asText(""));
        });
        assertTrue(out.toString().startsWith("first\n"));
        assertEquals(6 + 2_000_000, out.length(), "streaming is never capped");
        assertEquals("oops\n", err.toString());
        var refused = new ArrayList<JsonNode>();
        var missing = Assertions.assertThrows(ApiException.class, () ->
                admin.streamLines("POST", "/computers/" + id + "/exec", Map.of("command", List.of()), refused::add));
        assertEquals("invalid_request", missing.code(), "errors before output keep their status");
    }

    @Test
    void anInteractiveTerminalWithResize() throws Exception {
        String id = create("tty", Map.of()).path("id").asText();
        var terminal = TestTerminal.open(server, id, "/bin/sh", 100, 30);
        terminal.type("stty size\n");
        terminal.await("30 100");
        terminal.resize(120, 40);
        terminal.type("stty size; echo $TERM; echo parent-$PPID\n");
        terminal.await("40 120");
        terminal.await("xterm-256color");
        terminal.await("parent-1\r");   // the agent (PID 1) runs it, not runsc exec
        terminal.type("exit 3\n");
        assertEquals("{\"exit_code\":3}", terminal.end());
    }

    @Test
    void aStreamingClientThatHangsUpKillsItsCommand() throws Exception {
        String id = create("hangup", Map.of()).path("id").asText();
        hangUpDuring(id, "application/x-ndjson", "while true; do echo tick-tock; sleep 0.1; done", "tick-tock");
        assertKilled(id, "while true");
        assertTrue(run(id, "echo still-here").path("stdout").asText().contains("still-here"));
    }

    @Test
    void aStreamingClientThatHangsUpOnASilentCommandKillsIt() throws Exception {
        String id = create("hangup-silent", Map.of()).path("id").asText();
        hangUpDuring(id, "application/x-ndjson", "echo started; sleep 1001", "started");
        assertKilled(id, "sleep 1001");
    }

    @Test
    void aJsonClientThatHangsUpKillsItsCommand() throws Exception {
        String id = create("hangup-json", Map.of()).path("id").asText();
        // The JSON answer comes only at the end: the client hangs up while the command runs.
        hangUpDuring(id, "application/json", "sleep 1000", null);
        assertKilled(id, "sleep 1000");
    }

    @Test
    void aJsonClientThatWaitsGetsItsAnswerAfterSeconds() {
        String id = create("patient", Map.of()).path("id").asText();
        var body = run(id, "sleep 2; echo waited");
        assertEquals("waited\n", body.path("stdout").asText());
        assertEquals(0, body.path("exit_code").asInt());
    }

    /** Sends an exec over a raw socket and closes it once {@code until} arrived (or after a second). */
    private void hangUpDuring(String computer, String accept, String script, String until) throws Exception {
        var uri = URI.create(server.baseUrl());
        String token = ((KeyFileTokens) KeyFileTokens.read(
                server.dataDir.resolve("admin-key.json"))).token(admin).orElseThrow();
        String body = Json.mapper().writeValueAsString(Map.of("command", List.of("sh", "-c", script)));
        try (var socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.getOutputStream().write(("POST /v1/computers/" + computer + "/exec HTTP/1.1\r\nHost: x\r\n"
                    + "Authorization: Bearer " + token + "\r\nAccept: " + accept + "\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                    .getBytes(StandardCharsets.UTF_8));
            if (until == null) {
                sleep(1000);
                return;
            }
            var in = new BufferedReader(new InputStreamReader(socket.getInputStream()));
            for (String line = in.readLine(); line != null && !line.contains(until); line = in.readLine()) {
                // headers, then the first output
            }
        }
    }

    private void assertKilled(String computer, String command) {
        String ps = "";
        for (int i = 0; i < 50; i++) {
            sleep(100);
            ps = run(computer, "ps").path("stdout").asText();
            if (!ps.contains(command)) {
                break;
            }
        }
        assertFalse(ps.contains(command), "the command of a client that went away is killed: " + ps);
    }

    @Test
    void secretsComeFromVariablesAndAMissingOneStopsExec() {
        String varId = admin.create("/workspaces/" + ws + "/variables", Map.of("name", "api-token", "value", "first"))
                .path("variable").path("id").asText();
        var c = create("secretive", Map.of("env", Map.of("TOKEN", Map.of("secret", "api-token"), "PLAIN", "p")));
        String id = c.path("id").asText();
        assertEquals("secret", envVar(c, "TOKEN").path("source").asText());
        assertEquals("literal", envVar(c, "PLAIN").path("source").asText());
        assertEquals("first\n", run(id, "echo $TOKEN").path("stdout").asText());
        assertFalse(c.toString().contains("first"), "secret values never appear in computer responses");

        admin.delete("/variables/" + varId);
        var refused = exec(id, Map.of("command", List.of("true")));
        assertError(refused, 409, "variable_missing");
        assertEquals("api-token", refused.body().path("error").path("details").path("variables").get(0).asText());
        var seen = admin.get("/computers/" + id).path("computer");
        assertTrue(envVar(seen, "TOKEN").path("missing").asBoolean());
        assertFalse(envVar(seen, "PLAIN").path("missing").asBoolean());

        admin.create("/workspaces/" + ws + "/variables", Map.of("name", "api-token", "value", "second"));
        assertEquals("second\n", run(id, "echo $TOKEN").path("stdout").asText(), "picked up without a restart");

        admin.delete("/variables/api-token?workspace=" + ws);
        var detached = new LinkedHashMap<String, Object>();
        detached.put("TOKEN", null);
        admin.patch("/computers/" + id, Map.of("env", detached));
        assertEquals("[]\np\n", run(id, "echo \"[$TOKEN]\"; echo $PLAIN").path("stdout").asText());
    }

    private static JsonNode envVar(JsonNode computer, String name) {
        for (var v : computer.path("env_vars")) {
            if (v.path("name").asText().equals(name)) {
                return v;
            }
        }
        throw new AssertionError("no env var " + name + " in " + computer);
    }

    @Test
    void dataSurvivesARestartOfHearthAndRunningComputersAreAdopted() throws Exception {
        String id = create("keeper", Map.of()).path("id").asText();
        run(id, "echo kept > /data/file; sleep 1000 > /dev/null 2>&1 &");
        server.restart();
        admin = server.admin();
        assertEquals("kept\n", run(id, "cat /data/file").path("stdout").asText());
        assertTrue(run(id, "ps").path("stdout").asText().contains("sleep 1000"), "adopted, not restarted");
        assertEquals(1, admin.get("/computers/" + id).path("computer").path("generation").asInt());
    }

    @Test
    void aComputerWhoseSandboxDiedIsStartedAgainAndOrphansAreRemoved() throws Exception {
        var c = create("phoenix", Map.of());
        String id = c.path("id").asText();
        run(id, "echo still-here > /data/f");
        Path root = server.dataDir.resolve("runsc");
        new ProcessBuilder("runsc", "--root", root.toString(), "delete", "--force", id + "-0001").start().waitFor();
        Path stray = Files.createDirectories(server.dataDir.resolve("computers").resolve("00000000000000000000000000s"));
        Path cgroups = Path.of("/sys/fs/cgroup/pids").resolve(RunscRuntime.cgroupParent(root));
        Path strayCgroup = cgroups.resolve("00000000000000000000000000s-0001");
        Files.createDirectories(strayCgroup);
        Path othersCgroup = Files.createDirectories(Path.of("/sys/fs/cgroup/pids/hearth/another-instance-0001"));
        server.restart();
        admin = server.admin();
        assertEquals("still-here\n", run(id, "cat /data/f").path("stdout").asText());
        assertFalse(Files.exists(stray));
        assertFalse(Files.exists(strayCgroup), "an orphan cgroup is removed");
        assertTrue(Files.exists(cgroups.resolve(id + "-0001")), "a live one is kept");
        assertTrue(Files.exists(othersCgroup), "another instance's is never touched");
        Files.delete(othersCgroup);
    }

    @Test
    void aMainProcessThatDiesIsRestartedAndSaysSo() {
        String id = create("fragile", Map.of()).path("id").asText();
        run(id, "echo before > /data/f");
        exec(id, Map.of("command", List.of("kill", "-TERM", "1")));
        JsonNode c = null;
        String seen = "";
        for (int i = 0; i < 100; i++) {
            sleep(100);
            c = admin.get("/computers/" + id).path("computer");
            var r = exec(id, Map.of("command", List.of("cat", "/data/f")));
            seen = r.status() == 200 ? r.body().path("stdout").asText() : "";
            if (!c.path("error").isNull() && seen.equals("before\n")) {
                break;
            }
        }
        assertEquals("restarted", c.path("error").path("code").asText(), c.toString());
        assertTrue(c.path("error").path("message").asText().contains("main process exited"));
        assertEquals("ready", c.path("state").asText());
        assertEquals("before\n", seen, "/data is kept across the restart");
    }

    @Test
    void protectedComputersRefuseDeleteAndDeleteRemovesEverything() throws Exception {
        var c = create("guarded", Map.of("protected", true));
        String id = c.path("id").asText();
        assertError(admin.send("DELETE", "/computers/" + id, null, Map.of()), 409, "protected");
        admin.patch("/computers/" + id, Map.of("protected", false));
        var deleted = admin.delete("/computers/" + id).path("computer");
        assertFalse(deleted.path("deleted_at").isNull());
        assertFalse(Files.exists(server.dataDir.resolve("computers").resolve(id)));
        assertFalse(TestComputers.sandboxes(server.dataDir.resolve("runsc")).keySet().stream().anyMatch(s -> s.startsWith(id)));
        admin.get("/workspaces/" + ws + "/computers").path("computers")
                .forEach(x -> assertFalse(x.path("id").asText().equals(id)));
        assertError(exec(id, Map.of("command", List.of("true"))), 409, "conflict");
    }

    @Test
    void aWorkspaceWithComputersCannotBeDeleted() {
        String other = TestServer.workspace(admin).path("id").asText();
        String id = admin.create("/workspaces/" + other + "/computers", Map.of("name", "holder", "image", "hearth/busybox"))
                .path("computer").path("id").asText();
        assertError(admin.send("DELETE", "/workspaces/" + other, null, Map.of()), 409, "not_empty");
        admin.delete("/computers/" + id);
        assertEquals(200, admin.send("DELETE", "/workspaces/" + other, null, Map.of()).status());
    }

    @Test
    void otherWorkspacesSeeNothing() {
        String id = create("private-box", Map.of()).path("id").asText();
        var stranger = server.emailUser("computer-stranger@example.com");
        assertError(stranger.send("GET", "/computers/" + id, null, Map.of()), 404, "not_found");
        assertError(stranger.send("POST", "/computers/" + id + "/exec", Map.of("command", List.of("true")), Map.of()),
                404, "not_found");
    }

    @Test
    void anImageThatCannotBePulledFailsTheCreateClearly() {
        var r = admin.send("POST", "/workspaces/" + ws + "/computers",
                Map.of("name", "unpullable", "image", TestImages.MISSING_LAYOUT + ":tag"),
                Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertEquals(202, r.status(), r.body().toString());
        String op = r.body().path("operations").get(0).asText();
        var done = admin.get("/operations/" + op + "?wait=60").path("operation");
        assertEquals("failed", done.path("state").asText());
        assertEquals("image_pull_failed", done.path("error").path("code").asText());
        var c = admin.get("/computers/" + r.body().path("computer").path("id").asText()).path("computer");
        assertEquals("failed", c.path("state").asText());
        assertEquals("image_pull_failed", c.path("error").path("code").asText());
    }

    @Test
    void anImageFromARealRegistryIsPulledAndErrorsAreClear(@TempDir Path tmp) throws Exception {
        String local = TestImages.build(tmp,
                "echo from-entrypoint > /data/marker; exec sleep 100000");
        try (var registry = Registry.start()) {
            sh("skopeo copy --quiet --dest-tls-verify=false " + local + " docker://"
                    + registry.address + "/tools/busybox:1");
            var r = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "from-registry",
                    "image", registry.address + "/tools/busybox:1"), Map.of("Idempotency-Key", UUID.randomUUID().toString()));
            assertEquals(202, r.status(), r.body().toString());
            var done = admin.get("/operations/" + r.body().path("operations").get(0).asText() + "?wait=60").path("operation");
            assertEquals("succeeded", done.path("state").asText(), done.toString());
            String id = r.body().path("computer").path("id").asText();
            var c = admin.get("/computers/" + id).path("computer");
            String digest = new String(new ProcessBuilder("skopeo", "inspect", "--tls-verify=false", "--format", "{{.Digest}}",
                    "docker://" + registry.address + "/tools/busybox:1").start().getInputStream().readAllBytes()).strip();
            assertEquals(digest, c.path("image_digest").asText(), "image_digest is the manifest digest");
            assertEquals("from-entrypoint\n", run(id, "cat /data/marker").path("stdout").asText());

            // Pulled ahead of time, the same reference makes a computer at once (201), and the image lists.
            var pulled = admin.create("/workspaces/" + ws + "/images", Map.of("reference", registry.address + "/tools/busybox:1"));
            var pull = admin.get("/operations/" + pulled.path("operations").get(0).asText() + "?wait=60").path("operation");
            assertEquals("succeeded", pull.path("state").asText(), pull.toString());
            JsonNode listed = null;
            for (var image : admin.get("/workspaces/" + ws + "/images").path("images")) {
                if (image.path("reference").asText().equals(registry.address + "/tools/busybox:1")) {
                    listed = image;
                }
            }
            assertEquals(digest, listed.path("digest").asText());
            assertEquals("ready", listed.path("state").asText());
            var quick = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "quick",
                    "image", registry.address + "/tools/busybox:1"), Map.of("Idempotency-Key", UUID.randomUUID().toString()));
            assertEquals(201, quick.status(), quick.body().toString());
            assertEquals("ready", quick.body().path("computer").path("state").asText());
            admin.delete("/workspaces/" + ws + "/images/" + listed.path("id").asText());
            admin.get("/workspaces/" + ws + "/images").path("images").forEach(i ->
                    assertFalse(i.path("reference").asText().contains("/tools/busybox"), "forgotten"));
            assertEquals("from-entrypoint\n", run(quick.body().path("computer").path("id").asText(), "cat /data/marker")
                    .path("stdout").asText(), "an image in use stays unpacked after it is forgotten");

            for (String bad : List.of(registry.address + "/tools/none:1", "127.0.0.1:1/tools/busybox:1")) {
                var failed = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", TestServer.uniqueName("bad"),
                        "image", bad), Map.of("Idempotency-Key", UUID.randomUUID().toString()));
                var op = admin.get("/operations/" + failed.body().path("operations").get(0).asText() + "?wait=60").path("operation");
                assertEquals("image_pull_failed", op.path("error").path("code").asText(), op.toString());
                assertTrue(op.path("error").path("message").asText().contains(bad), op.toString());
            }
        }
    }

    @Test
    void anOciImageIsPulledAndItsEntrypointRuns(@TempDir Path tmp) throws Exception {
        String image = TestImages.build(tmp,
                "echo from-entrypoint > /data/marker; exec sleep 100000");
        var r = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "pulled", "image", image),
                Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertEquals(202, r.status(), r.body().toString());
        assertEquals("creating", r.body().path("computer").path("state").asText());
        var done = admin.get("/operations/" + r.body().path("operations").get(0).asText() + "?wait=60").path("operation");
        assertEquals("succeeded", done.path("state").asText(), done.toString());
        String id = r.body().path("computer").path("id").asText();
        var c = admin.get("/computers/" + id).path("computer");
        assertEquals("ready", c.path("state").asText());
        assertEquals("from-entrypoint\n", run(id, "cat /data/marker").path("stdout").asText());
    }

    @Test
    void badInputIsRefusedClearly() {
        var bodies = new ArrayList<Map<String, Object>>();
        bodies.add(Map.of("name", "Bad Name", "image", "hearth/busybox"));
        bodies.add(Map.of("name", "x", "image", "!!not an image"));
        bodies.add(Map.of("name", "x"));
        bodies.add(Map.of("name", "x", "image", "hearth/busybox", "resources", Map.of("memory_mb", -1)));
        bodies.add(Map.of("name", "x", "image", "hearth/busybox", "resources", Map.of("memory_mb", 10_000_000)));
        bodies.add(Map.of("name", "x", "image", "hearth/busybox", "resources", Map.of("cpus", 0)));
        bodies.add(Map.of("name", "x", "image", "hearth/busybox", "resources", Map.of("cpus", 1000)));
        bodies.add(Map.of("name", "x", "image", "hearth/busybox", "env", Map.of("1BAD", "v")));
        bodies.add(Map.of("name", "x", "image", "hearth/busybox", "env", Map.of("K", Map.of("secret", "Not_A_Label"))));
        bodies.add(Map.of("name", "x", "image", "hearth/busybox", "env", Map.of("K", 5)));
        var huge = new LinkedHashMap<String, Object>();
        for (int i = 0; i < 300; i++) {
            huge.put("V" + i, "x");
        }
        bodies.add(Map.of("name", "x", "image", "hearth/busybox", "env", huge));
        bodies.add(Map.of("name", "x", "image", "hearth/busybox", "ports", List.of(Map.of("target", 70000))));
        bodies.add(Map.of("name", "x", "image", "hearth/busybox", "ports", List.of(Map.of("target", 80), Map.of("target", 80))));
        for (var body : bodies) {
            assertError(admin.send("POST", "/workspaces/" + ws + "/computers", body,
                    Map.of("Idempotency-Key", UUID.randomUUID().toString())), 400, "invalid_request");
        }
        String id = create("picky", Map.of()).path("id").asText();
        for (var body : List.<Map<String, Object>>of(Map.of("command", List.of()), Map.of("command", List.of("true"), "timeout_seconds", 0),
                Map.of("command", List.of("true"), "cwd", "relative"), Map.of())) {
            assertError(exec(id, body), 400, "invalid_request");
        }
        for (String ports : List.of("[null]", "5", "[5]", "[{\"target\": \"x\"}]")) {
            var patched = admin.send("PATCH", "/computers/" + id, "{\"ports\": " + ports + "}", Map.of());
            assertError(patched, 400, "invalid_request");
            assertTrue(patched.body().path("error").path("message").asText().startsWith("ports"), patched.body().toString());
        }
        var dup = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "picky", "image", "hearth/busybox"),
                Map.of("Idempotency-Key", UUID.randomUUID().toString()));
        assertError(dup, 409, "conflict");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sh(String script) throws Exception {
        var p = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
    }
}
