package dev.hearth.computers;

import static dev.hearth.support.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import dev.hearth.support.TestTerminal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Background processes and the computer's log, kept by the agent: they outlive their client, sleep,
 * wake and a fork; their output is replayed from the start; signals and stdin reach them; on busybox
 * and on a glibc distribution (Debian), with a terminal there too.
 */
@HearthServerTest(computers = true)
class ProcessesTest {
    @Injected
    private TestServer server;
    private static final String COUNTER = "i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.2; done";

    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeAll
    void workspace() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    /** Stops reading an NDJSON answer: the client hangs up. */
    private static final class HangUp extends RuntimeException {
        HangUp() {
            super(null, null, false, false);
        }
    }

    @Test
    void aBackgroundProcessOutlivesItsClientAndItsOutputIsReplayedFromTheStart() throws Exception {
        String box = computer("outlives", Map.of());
        var started = start(box, Map.of("command", List.of("sh", "-c", COUNTER), "tag", "counter"));
        assertEquals("running", started.path("state").asText());
        assertEquals("counter", started.path("tag").asText());
        assertTrue(started.path("exit_code").isNull());
        int pid = started.path("pid").asInt();
        var seen = new ArrayList<JsonNode>();
        assertThrows(HangUp.class, () -> admin.streamLines("GET", output(box, pid) + "?follow=true", null, line -> {
            seen.add(line);
            throw new HangUp();
        }));
        assertEquals("tick 1\n", seen.get(0).path("stdout").asText());
        Thread.sleep(1000);
        var listed = admin.get("/computers/" + box + "/processes").path("processes");
        assertEquals("running", find(listed, pid).path("state").asText(), listed.toString());
        var replay = lines(output(box, pid));
        assertEquals("tick 1\n", replay.get(0).path("stdout").asText(), "from the start");
        assertTrue(replay.size() >= 4, replay.toString());
        assertFalse(replay.getLast().has("exit_code"), "it still runs: no exit line");

        var ended = admin.post("/computers/" + box + "/processes/" + pid + "/signal", Map.of("signal", "TERM"));
        assertEquals(pid, ended.path("process").path("pid").asInt());
        var last = lines(output(box, pid) + "?follow=true").getLast();
        assertEquals(143, last.path("exit_code").asInt(), "killed by SIGTERM: 128 + 15");
        var after = admin.get("/computers/" + box + "/processes/" + pid).path("process");
        assertEquals("exited", after.path("state").asText());
        assertEquals(143, after.path("exit_code").asInt());
        assertFalse(after.path("ended_at").isNull());
    }

    @Test
    void deletingTheComputerEndsItsFollowersAtOnce() throws Exception {
        String box = computer("deleted-under", Map.of());
        int pid = start(box, Map.of("command", List.of("sleep", "3600"))).path("pid").asInt();
        var follower = Thread.ofVirtual().start(() -> {
            try {
                admin.streamLines("GET", output(box, pid) + "?follow=true", null, line -> { });
            } catch (RuntimeException e) {
                // cut short: what a client of a deleted computer sees
            }
        });
        Thread.sleep(500);
        admin.delete("/computers/" + box);
        // Followers do not hold the computer, and a removed sandbox's network neither answers nor resets.
        follower.join(10_000);
        assertFalse(follower.isAlive(), "a follower of a deleted computer's process ends with it");
    }

    @Test
    void aBackgroundProcessKeepsRunningThroughSleepAndWake() throws Exception {
        String box = computer("sleeper", Map.of());
        int pid = start(box, Map.of("command", List.of("sh", "-c", COUNTER))).path("pid").asInt();
        var followed = new CopyOnWriteArrayList<JsonNode>();
        var follower = Thread.ofVirtual().start(() ->
                admin.streamLines("GET", output(box, pid) + "?follow=true", null, followed::add));
        Thread.sleep(800);
        assertEquals("sleeping", admin.post("/computers/" + box + "/sleep", Map.of()).path("computer")
                .path("state").asText());
        follower.join(30_000);
        assertFalse(follower.isAlive(), "sleep ends a follower");
        assertFalse(followed.isEmpty());
        assertFalse(followed.getLast().has("exit_code"), "the process did not end: " + followed.getLast());

        // Any process route wakes the computer; the process runs on where it was.
        var woken = admin.get("/computers/" + box + "/processes/" + pid).path("process");
        assertEquals("running", woken.path("state").asText(), woken.toString());
        int before = ticks(box, pid);
        Thread.sleep(1000);
        int after = ticks(box, pid);
        assertTrue(after > before, "it counts on after the wake: " + before + " then " + after);
        assertEquals("tick 1\n", lines(output(box, pid)).getFirst().path("stdout").asText(),
                "output kept from before the sleep");
    }

    @Test
    void aForkHasItsSourcesProcessesAndTheirOutput() throws Exception {
        String box = computer("forked", Map.of());
        int pid = start(box, Map.of("command", List.of("sh", "-c", COUNTER), "tag", "kept")).path("pid").asInt();
        Thread.sleep(500);
        var made = admin.send("POST", "/computers/" + box + "/checkpoints", Map.of("name", "with-counter"),
                TestComputers.key());
        assertEquals(202, made.status(), made.body().toString());
        String op = made.body().path("operations").get(0).asText();
        assertEquals("succeeded", admin.get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
        String fork = TestComputers.create(admin, ws, TestServer.uniqueName("fork"), "hearth/busybox",
                Map.of("from_checkpoint", made.body().path("checkpoint").path("id").asText())).path("id").asText();
        var there = admin.get("/computers/" + fork + "/processes/" + pid).path("process");
        assertEquals("kept", there.path("tag").asText());
        assertEquals("running", there.path("state").asText());
        assertEquals("tick 1\n", lines(output(fork, pid)).getFirst().path("stdout").asText());
        admin.post("/computers/" + fork + "/processes/" + pid + "/signal", Map.of("signal", "KILL"));
        assertEquals(137, lines(output(fork, pid) + "?follow=true").getLast().path("exit_code").asInt());
        assertEquals("running", admin.get("/computers/" + box + "/processes/" + pid).path("process").path("state")
                .asText(), "the source's process is its own");
    }

    @Test
    void aGlibcDistributionKeepsBackgroundProcessesAndOpensTerminals() throws Exception {
        String image = TestImages.debian();
        TestComputers.pull(admin, ws, image);
        String debian = TestComputers.create(admin, ws, TestServer.uniqueName("bookworm"), image, Map.of())
                .path("id").asText();
        int pid = start(debian, Map.of("command", List.of("bash", "-c", COUNTER), "tag", "counter")).path("pid").asInt();
        eventually(Duration.ofSeconds(5), () -> ticks(debian, pid), n -> n >= 3);
        String replay = stdout(lines(output(debian, pid)));
        assertTrue(replay.startsWith("tick 1\ntick 2\ntick 3\n"), "replayed from the start: " + replay);
        assertEquals("running", find(admin.get("/computers/" + debian + "/processes").path("processes"), pid)
                .path("state").asText());
        admin.post("/computers/" + debian + "/processes/" + pid + "/signal", Map.of("signal", "TERM"));
        assertEquals(143, lines(output(debian, pid) + "?follow=true").getLast().path("exit_code").asInt());

        var terminal = TestTerminal.open(server, debian, "/bin/bash", 90, 25);
        terminal.type("stty size; tty; echo shell-$BASH_VERSION\n");
        terminal.await("25 90");
        terminal.await("/dev/pts/");
        terminal.await("shell-5.");
        terminal.type("exit 4\n");
        assertEquals("{\"exit_code\":4}", terminal.end());
        admin.delete("/computers/" + debian);
    }

    @Test
    void stdinReachesAProcessThatAskedForIt() throws Exception {
        String box = computer("stdin", Map.of());
        int pid = start(box, Map.of("command", List.of("tr", "a-z", "A-Z"), "stdin", true)).path("pid").asInt();
        var fed = admin.send("POST", "/computers/" + box + "/processes/" + pid + "/stdin", "hello\n", Map.of());
        assertEquals(200, fed.status(), fed.body().toString());
        admin.send("POST", "/computers/" + box + "/processes/" + pid + "/stdin?close=true", "world\n", Map.of());
        var out = lines(output(box, pid) + "?follow=true");
        assertEquals("HELLO\nWORLD\n", stdout(out));
        assertEquals(0, out.getLast().path("exit_code").asInt());
        int deaf = start(box, Map.of("command", List.of("sleep", "30"))).path("pid").asInt();
        var refused = admin.send("POST", "/computers/" + box + "/processes/" + deaf + "/stdin", "x", Map.of());
        assertEquals(409, refused.status(), refused.body().toString());
        assertEquals("conflict", refused.body().path("error").path("code").asText());
    }

    @Test
    void theLogIsTheMainProcessOutputAndKeepsItsExit() throws Exception {
        String box = computer("logged", Map.of("command", List.of("sh", "-c", "echo starting; echo warming >&2; exit 3"),
                "restart", "never"));
        List<JsonNode> log = eventually(Duration.ofSeconds(10), () -> lines("/computers/" + box + "/logs"),
                l -> !l.isEmpty() && l.getLast().has("exit_code"));
        assertEquals("starting\n", stdout(log));
        assertTrue(log.stream().anyMatch(l -> l.path("stderr").asText().equals("warming\n")), log.toString());
        assertEquals(3, log.getLast().path("exit_code").asInt());
        var main = find(admin.get("/computers/" + box + "/processes").path("processes"), -1);
        assertEquals("main", main.path("tag").asText());
        assertEquals("exited", main.path("state").asText());
        assertEquals("hi", TestComputers.run(admin, box, "echo hi"), "the computer stays up for exec");
        var exit = mainExit(box);
        assertEquals(3, exit.path("exit_code").asInt(), exit.toString());
        assertEquals(main.path("ended_at").asText(), exit.path("ended_at").asText());
        admin.post("/computers/" + box + "/sleep", Map.of());
        admin.post("/computers/" + box + "/wake", Map.of());
        assertEquals(3, mainExit(box).path("exit_code").asInt(), "still told after a wake");
        String quiet = computer("no-main", Map.of("command", List.of(), "entrypoint", List.of()));
        assertError(404, "not_found", () -> lines("/computers/" + quiet + "/logs"));
    }

    @Test
    void badInputIsRefusedClearly() {
        String box = computer("refusals", Map.of());
        String base = "/computers/" + box + "/processes";
        assertError(400, "invalid_request", () -> admin.post(base, Map.of("command", List.of())));
        assertError(400, "invalid_request", () -> admin.post(base, Map.of("command", List.of("true"),
                "tag", "x".repeat(129))));
        assertError(400, "invalid_request", () -> admin.post(base, Map.of("command", List.of("/no/such/program"))));
        assertError(400, "invalid_request", () -> admin.get(base + "/abc"));
        assertError(404, "not_found", () -> admin.get(base + "/99999"));
        int pid = start(box, Map.of("command", List.of("sleep", "30"))).path("pid").asInt();
        assertError(400, "invalid_request", () -> admin.post(base + "/" + pid + "/signal", Map.of("signal", "BOGUS")));
        assertError(400, "invalid_request", () -> lines(output(box, pid) + "?follow=maybe"));
        assertEquals(pid, admin.post(base + "/" + pid + "/signal", Map.of("signal", "SIGKILL")).path("process")
                .path("pid").asInt(), "SIG prefix accepted");
    }

    // ---- helpers

    /** The computer's main_exit, once hearth serve has heard of it from the agent. */
    private JsonNode mainExit(String computer) {
        JsonNode exit = eventually(Duration.ofSeconds(10),
                () -> admin.get("/computers/" + computer).path("computer").path("main_exit"), e -> !e.isNull());
        assertFalse(exit.isNull(), "main_exit is told");
        return exit;
    }

    private String computer(String name, Map<String, Object> extra) {
        return TestComputers.create(admin, ws, TestServer.uniqueName(name), "hearth/busybox", extra).path("id").asText();
    }

    private JsonNode start(String computer, Map<String, Object> body) {
        var r = admin.send("POST", "/computers/" + computer + "/processes", body, Map.of());
        assertEquals(201, r.status(), () -> r.body().toString());
        return r.body().path("process");
    }

    private static String output(String computer, int pid) {
        return "/computers/" + computer + "/processes/" + pid + "/output";
    }

    private List<JsonNode> lines(String path) {
        var lines = new ArrayList<JsonNode>();
        admin.streamLines("GET", path, null, lines::add);
        return lines;
    }

    private int ticks(String computer, int pid) {
        return stdout(lines(output(computer, pid))).split("\n").length;
    }

    private static String stdout(List<JsonNode> lines) {
        var text = new StringBuilder();
        lines.forEach(l -> text.append(l.path("stdout").asText()));
        return text.toString();
    }

    /** The process with {@code pid}, or the main process for -1. */
    private static JsonNode find(JsonNode processes, int pid) {
        for (var p : processes) {
            if (pid == -1 ? p.path("tag").asText().equals("main") : p.path("pid").asInt() == pid) {
                return p;
            }
        }
        throw new AssertionError("no process " + pid + " in " + processes);
    }

    private static void assertError(int status, String code, Executable call) {
        var e = assertThrows(ApiException.class, call);
        assertEquals(status, e.status(), e.getMessage());
        assertEquals(code, e.code(), e.getMessage());
    }
}
