package dev.hearth.computers;

import static dev.hearth.support.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Commands through hearth-agent, the PID 1 of every computer: bytes unchanged, the agent answering
 * hearth serve only (its secret is nowhere a program in the computer sees it), a fork's agent
 * answering to the fork's secret, and a killed agent restarting its computer.
 */
@HearthServerTest(computers = true, restarts = {"killed", "doomed"})
class AgentTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeAll
    void workspace() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    @Test
    void base64CarriesBytesThatAreNotText() {
        String id = TestComputers.create(admin, ws, "bytes", "hearth/busybox", Map.of()).path("id").asText();
        byte[] input = new byte[70_000];
        new Random(7).nextBytes(input);
        var r = admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c", "cat; printf '\\377\\376' >&2"),
                "stdin", Base64.getEncoder().encodeToString(input), "encoding", "base64"));
        assertEquals(0, r.path("exit_code").asInt(), r::toString);
        assertArrayEquals(input, Base64.getDecoder().decode(r.path("stdout").asText()));
        assertEquals("//4=", r.path("stderr").asText());
        var bad = admin.send("POST", "/computers/" + id + "/exec", Map.of("command", List.of("true"), "encoding", "utf-16"),
                Map.of());
        assertEquals(400, bad.status());
        admin.delete("/computers/" + id);
    }

    @Test
    void theStreamKeepsACharacterCutBetweenTwoWrites() {
        String id = TestComputers.create(admin, ws, "cut", "hearth/busybox", Map.of()).path("id").asText();
        var out = new StringBuilder();
        var lines = new ArrayList<String>();
        admin.streamLines("POST", "/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c",
                "printf 'h\\303'; sleep 0.3; printf '\\251llo'")), line -> {
                    lines.add(line.toString());
                    out.append(line.path("stdout").asText(""));
                });
        assertEquals("héllo", out.toString(), lines::toString);
        admin.delete("/computers/" + id);
    }

    @Test
    void theAgentAnswersHearthOnlyAndItsSecretStaysHidden() throws Exception {
        var made = TestComputers.create(admin, ws, "secret", "hearth/busybox", Map.of("command", List.of("sleep", "3600")));
        String id = made.path("id").asText();
        assertTrue(TestComputers.run(admin, id, "wget -q -O- http://127.0.0.1:49983/health 2>&1 || true").contains("401"));
        assertTrue(TestComputers.run(admin, id, "wget -q -O- --header 'Authorization: Bearer guess' "
                + "http://127.0.0.1:49983/health 2>&1 || true").contains("401"));
        assertEquals("0", TestComputers.run(admin, id, "env | grep -c HEARTH_AGENT || true"), "not in an exec's environment");
        assertEquals("0", TestComputers.run(admin, id, "tr '\\0' '\\n' < /proc/$(pidof sleep)/environ | grep -c HEARTH_AGENT "
                + "|| true"), "nor in the main process's");
        // With it (what hearth serve sends), the same request is answered.
        assertEquals(200, health(address(id), secret(id)));
        admin.delete("/computers/" + id);
    }

    @Test
    void aForkAnswersToItsOwnSecretAndNotItsSources() throws Exception {
        String source = TestComputers.create(admin, ws, "source", "hearth/busybox", Map.of()).path("id").asText();
        TestComputers.run(admin, source, "echo from-source > /tmp/mark");
        var made = admin.send("POST", "/computers/" + source + "/checkpoints", Map.of("name", "k"), TestComputers.key()).body();
        String op = made.path("operations").get(0).asText();
        assertEquals("succeeded", admin.get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
        String checkpoint = made.path("checkpoint").path("id").asText();
        var fork = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "fork",
                "from_checkpoint", checkpoint), TestComputers.key()).body().path("computer");
        String forkId = fork.path("id").asText();
        awaitReady(forkId);
        assertEquals("from-source", TestComputers.run(admin, forkId, "cat /tmp/mark"), "the fork runs commands");
        // The fork's eth0 also holds its source's address (sockets in its memory may be bound to it).
        String sourceAddress = address(source);
        String address = TestComputers.run(admin, forkId, "ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1 "
                + "| grep -v '^" + sourceAddress + "$'");
        assertEquals(200, health(address, secret(forkId)));
        assertEquals(401, health(address, secret(source)), "the source's secret, in the fork's memory, was replaced");
        admin.delete("/computers/" + forkId);
        admin.delete("/computers/" + source);
    }

    @Test
    void aKilledAgentRestartsItsComputerWithTheReason() throws Exception {
        String id = TestComputers.create(admin, ws, "killed", "hearth/busybox", Map.of()).path("id").asText();
        var sandboxes = TestComputers.sandboxes(server.dataDir.resolve("runsc"));
        String sandbox = sandboxes.keySet().stream().filter(s -> s.startsWith(id)).findFirst().orElseThrow();
        var kill = new ProcessBuilder("runsc", "--root", server.dataDir.resolve("runsc").toString(), "kill", sandbox, "KILL")
                .inheritIO().start();
        assertEquals(0, kill.waitFor());
        String error = eventually(Duration.ofSeconds(30),
                () -> admin.get("/computers/" + id).path("computer").path("error").path("message").asText(""),
                message -> !message.isEmpty());
        assertTrue(error.contains("restart"), error);
        awaitReady(id);
        assertEquals("up", TestComputers.run(admin, id, "echo up"), "the restarted computer runs commands");
        admin.delete("/computers/" + id);
    }

    /**
     * The host kills a sandbox outright (its out-of-memory killer, here SIGKILL to gVisor's kernel):
     * nothing inside is left to answer or reset the exec's connection, and the exec still answers
     * within a second or two of the supervisor seeing it, not at its time limit.
     */
    @Test
    void anExecWhoseSandboxTheHostKillsAnswersAtOnce() throws Exception {
        String id = TestComputers.create(admin, ws, "doomed", "hearth/busybox", Map.of()).path("id").asText();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var exec = pool.submit(() -> admin.send("POST", "/computers/" + id + "/exec",
                    Map.of("command", List.of("sleep", "100"), "timeout_seconds", 100), Map.of()));
            Thread.sleep(1000);
            var kill = new ProcessBuilder("pkill", "-KILL", "-f", "runsc-sandbox .*computers/" + id + "/").inheritIO()
                    .start();
            assertEquals(0, kill.waitFor(), "gVisor's kernel of the computer was found and killed");
            // 60 s: far above the supervisor's 1 s pass, far below the 130 s the exec waited before.
            var r = exec.get(60, TimeUnit.SECONDS);
            assertEquals(503, r.status(), () -> r.body().toString());
            assertEquals("runtime_unavailable", r.body().path("error").path("code").asText(), () -> r.body().toString());
        }
        awaitReady(id);
        assertEquals("up", TestComputers.run(admin, id, "echo up"), "restarted, it runs commands");
        admin.delete("/computers/" + id);
    }

    @Test
    void aDebianComputerRunsCommandsLikeAnyOther() throws Exception {
        String image = TestImages.debian();
        TestComputers.pull(admin, ws, image);
        String id = TestComputers.create(admin, ws, "bookworm", image, Map.of()).path("id").asText();
        var r = admin.post("/computers/" + id + "/exec", Map.of("command", List.of("python3", "-c",
                "import os,sys; print(os.getcwd(), os.environ['X']); sys.stderr.write(sys.stdin.read()); sys.exit(3)"),
                "cwd", "/tmp", "env", Map.of("X", "y"), "stdin", "in"));
        assertEquals(3, r.path("exit_code").asInt(), r::toString);
        assertEquals("/tmp y\n", r.path("stdout").asText());
        assertEquals("in", r.path("stderr").asText());
        var slow = admin.post("/computers/" + id + "/exec", Map.of("command", List.of("bash", "-c",
                "sleep 300 & sleep 300 & wait"), "timeout_seconds", 1));
        assertTrue(slow.path("timed_out").asBoolean(), slow::toString);
        assertEquals("0", TestComputers.run(admin, id, "pgrep -c sleep || true"), "the time limit killed the whole tree");
        admin.delete("/computers/" + id);
    }

    @Test
    void aCommandSilentForLongerThanAMinuteStillAnswers() throws Exception {
        String id = TestComputers.create(admin, ws, "quiet", "hearth/busybox", Map.of()).path("id").asText();
        var r = admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sleep", "1000"),
                "timeout_seconds", 61));
        assertTrue(r.path("timed_out").asBoolean(), r::toString);
        assertEquals("up", TestComputers.run(admin, id, "echo up"));
        admin.delete("/computers/" + id);
    }

    private String address(String id) {
        return TestComputers.run(admin, id, "ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1 | head -1");
    }

    private void awaitReady(String id) throws InterruptedException {
        for (int i = 0; i < 300; i++) {
            if (admin.get("/computers/" + id).path("computer").path("state").asText().equals("ready")) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("computer " + id + " never became ready");
    }

    /** The secret hearth serve derives for a computer (HMAC-SHA256 of its id under the agent key). */
    private String secret(String computerId) throws Exception {
        byte[] key = Base64.getDecoder().decode(Files.readString(server.dataDir.resolve("agent-key")).strip());
        var mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(
                mac.doFinal(("hearth-agent:" + computerId).getBytes(StandardCharsets.UTF_8)));
    }

    private static int health(String address, String secret) throws Exception {
        try (var http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            return http.send(HttpRequest.newBuilder(URI.create("http://" + address + ":49983/health"))
                    .header("Authorization", "Bearer " + secret).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        }
    }
}
