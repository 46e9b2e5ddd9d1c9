package dev.hearth.limits;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.support.Eventually;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A computer's process limit holds inside it: a fork bomb meets EAGAIN, and the computer and its memory live on. */
@HearthServerTest(computers = true)
class ComputerLimitsTest {
    @Injected
    private HearthClient admin;
    @Injected
    private TestServer server;
    private String ws;

    /** Forks {@code argv[1]} children that wait; answers how many started, met EAGAIN, met another error. */
    private static final String FORK_BOMB = """
            #include <errno.h>
            #include <signal.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <sys/wait.h>
            #include <unistd.h>
            int main(int argc, char **argv) {
                int n = atoi(argv[1]), started = 0, refused = 0, other = 0;
                pid_t *children = calloc(n, sizeof(pid_t));
                for (int i = 0; i < n; i++) {
                    pid_t p = fork();
                    if (p == 0) { pause(); _exit(0); }
                    if (p > 0) children[started++] = p;
                    else if (errno == EAGAIN) refused++;
                    else other++;
                }
                for (int i = 0; i < started; i++) kill(children[i], SIGKILL);
                while (wait(NULL) > 0) { }
                printf("%d %d %d\\n", started, refused, other);
                return 0;
            }
            """;

    /** Counts in memory, writing /tmp/count every 50 ms and its pid to /tmp/counter.pid, without forking. */
    private static final String TICK = """
            #include <stdio.h>
            #include <time.h>
            #include <unistd.h>
            int main(void) {
                FILE *pid = fopen("/tmp/counter.pid", "w");
                fprintf(pid, "%d\\n", getpid());
                fclose(pid);
                struct timespec pause = {0, 50000000};
                for (long i = 1;; i++) {
                    FILE *count = fopen("/tmp/count.new", "w");
                    fprintf(count, "%ld\\n", i);
                    fclose(count);
                    rename("/tmp/count.new", "/tmp/count");
                    nanosleep(&pause, NULL);
                }
            }
            """;

    /** Processes older than the shell that runs this, but the agent (PID 1). */
    private static final String OLDER_THAN_ME = "ps -o pid,comm | awk -v me=$$ 'NR > 1 && $1 != 1 && $1 < me'";

    @BeforeAll
    void workspace() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    @Test
    void aForkBombMeetsEagainAndTheComputerLivesOn(@TempDir Path tmp) throws Exception {
        // The main process must not fork: a shell that cannot fork exits, and a main process that exits is restarted.
        String counter = TestImages.withPrograms(tmp, "exec /bin/tick", Map.of("bin/bomb", FORK_BOMB, "bin/tick", TICK));
        TestComputers.pull(admin, ws, counter);
        var made = TestComputers.create(admin, ws, "bombed", counter, Map.of());
        String id = made.path("id").asText();
        assertEquals(256, made.path("resources").path("pids").asInt(), "the default: half the 512 MB of memory");
        String pid = run(id, TestImages.COUNTER_PID);
        long before = count(id);
        // 1,500 processes, as the probe started: the first couple of hundred start, the rest are refused.
        var counts = run(id, "bomb 1500").split(" ");
        int started = Integer.parseInt(counts[0]);
        assertTrue(started > 200 && started < 256, "the limit, less what already ran: " + started);
        assertEquals(1500 - started, Integer.parseInt(counts[1]), "the rest met EAGAIN");
        assertEquals(pid, run(id, "cat /tmp/counter.pid"), "the main process is the same");
        assertTrue(count(id) > before, "and goes on counting");
        var after = admin.get("/computers/" + id).path("computer");
        assertEquals("ready", after.path("state").asText(), after.toString());
        assertEquals(made.path("last_started_at"), after.path("last_started_at"), "never restarted");
        assertTrue(after.path("error").isNull(), after.toString());
        admin.delete("/computers/" + id);
    }

    /**
     * An exec's time limit holds under a shell fork bomb: the exec answers {@code timed_out} (not a 503
     * when the host's own limit runs out), nothing of the bomb is left running, and the computer lives on.
     */
    @Test
    void aForkBombPastItsTimeLimitIsEndedWhole() throws Exception {
        var made = TestComputers.create(admin, ws, "swamped", "hearth/busybox", Map.of());
        String id = made.path("id").asText();
        run(id, "echo kept > /tmp/kept");
        var r = admin.send("POST", "/computers/" + id + "/exec", Map.of("command",
                List.of("sh", "-c", "f() { f | f; }; f"), "timeout_seconds", 5), Map.of());
        assertEquals(200, r.status(), () -> r.body().toString());
        assertTrue(r.body().path("timed_out").asBoolean(), () -> r.body().toString());
        // Every process of the bomb is gone: none but the agent (PID 1) is older than this command's shell.
        assertEquals("", run(id, OLDER_THAN_ME));
        // A child that left the exec's process group (its own session) is ended with it.
        var left = admin.send("POST", "/computers/" + id + "/exec", Map.of("command",
                List.of("sh", "-c", "setsid sleep 300 & sleep 300"), "timeout_seconds", 1), Map.of());
        assertTrue(left.body().path("timed_out").asBoolean(), () -> left.body().toString());
        assertEquals("0", run(id, "ps -o comm | grep -c '^sleep$' || true"), "the whole tree is ended");
        // A bomb in the background ends with one KILL to its process.
        var started = admin.send("POST", "/computers/" + id + "/processes",
                Map.of("command", List.of("sh", "-c", "f() { f | f; }; f")), Map.of());
        assertEquals(201, started.status(), () -> started.body().toString());
        String pid = started.body().path("process").path("pid").asText();
        Thread.sleep(2000); // swamped by now
        admin.post("/computers/" + id + "/processes/" + pid + "/signal", Map.of("signal", "KILL"));
        // Until its processes are reaped the computer is at its process limit: a shell may not fork yet.
        assertEquals("", Eventually.eventually(Duration.ofSeconds(10), () -> runOrWhy(id, OLDER_THAN_ME),
                String::isEmpty));
        assertEquals("kept", run(id, "cat /tmp/kept"));
        var after = admin.get("/computers/" + id).path("computer");
        assertEquals(made.path("last_started_at"), after.path("last_started_at"), "never restarted");
        admin.delete("/computers/" + id);
    }

    /**
     * gVisor's own kernel grows with the processes a computer makes, in the sandbox's cgroup: a
     * computer of the smallest size runs a loop of 1,500 commands and lives on, still seeing its size.
     */
    @Test
    void aSmallComputerRunsThousandsOfCommandsAndLivesOn() {
        var made = TestComputers.create(admin, ws, "small-busy", "hearth/busybox",
                Map.of("resources", Map.of("memory_mb", 64)));
        String id = made.path("id").asText();
        var r = admin.send("POST", "/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c",
                "i=0; while [ $i -lt 1500 ]; do /bin/true; i=$((i+1)); done; echo $i"), "timeout_seconds", 600), Map.of());
        assertEquals(200, r.status(), () -> r.body().toString());
        assertEquals("1500", r.body().path("stdout").asText().strip(), () -> r.body().toString());
        assertEquals("65536", run(id, "awk '/MemTotal/ {print $2}' /proc/meminfo"), "it still sees its 64 MiB");
        var after = admin.get("/computers/" + id).path("computer");
        assertEquals(made.path("last_started_at"), after.path("last_started_at"), "never restarted");
        assertTrue(after.path("error").isNull(), after.toString());
        admin.delete("/computers/" + id);
    }

    @Test
    void resourcesAreSetOnCreateAndPatch() {
        var made = TestComputers.create(admin, ws, "sized", "hearth/busybox",
                Map.of("resources", Map.of("memory_mb", 256, "pids", 64)));
        String id = made.path("id").asText();
        assertEquals(64, made.path("resources").path("pids").asInt());
        assertEquals("64", run(id, "ulimit -u"), "the limit is the computer's own");
        var patched = patch(id, Map.of("cpus", 0.5, "memory_mb", 1024));
        assertEquals(0.5, patched.path("resources").path("cpus").asDouble());
        assertEquals(1024, patched.path("resources").path("memory_mb").asInt());
        assertEquals(64, patched.path("resources").path("pids").asInt(), "a pids limit set stays");
        for (var bad : List.<Map<String, Object>>of(Map.of("pids", 1000), Map.of("pids", 8), Map.of("pids", 1.5),
                Map.of("memory_mb", 100, "pids", 64), Map.of("cpus", 0), Map.of("memory_mb", "lots"))) {
            var r = admin.send("PATCH", "/computers/" + id, Map.of("resources", bad), Map.of());
            assertError(r, 400, "invalid_request");
        }
        String other = TestComputers.create(admin, ws, "defaulted", "hearth/busybox", Map.of()).path("id").asText();
        assertEquals(512, patch(other, Map.of("memory_mb", 1024)).path("resources").path("pids").asInt(),
                "a default pids limit follows the memory");
        for (String c : List.of(id, other)) {
            admin.delete("/computers/" + c);
        }
    }

    @Test
    void aFullDiskIsEnospcInsideAndTheComputerRunsOn() throws Exception {
        var made = TestComputers.create(admin, ws, "filled", "hearth/busybox", Map.of("resources", Map.of("disk_mb", 256)));
        String id = made.path("id").asText();
        assertEquals(256, made.path("resources").path("disk_mb").asInt());
        assertTrue(Integer.parseInt(run(id, "df -m /data | tail -1 | awk '{print $2}'")) <= 256, "df shows the disk");
        // /data and the root file system's changes share the disk, and neither gets past it.
        for (String target : List.of("/data/fill", "/fill")) {
            String out = run(id, "dd if=/dev/zero of=" + target + " bs=1M count=400 2>&1; echo exit=$?; rm -f " + target);
            assertTrue(out.contains("No space left on device") && !out.contains("exit=0"), target + ": " + out);
        }
        Path image = server.dataDir.resolve("disks").resolve(id + ".img");
        assertTrue(Files.size(image) <= 256L << 20, "the host holds no more than the disk");
        // gVisor hands the root file system's freed blocks back to the disk a moment after rm.
        String again = Eventually.eventually(Duration.ofSeconds(5), () -> admin.post("/computers/" + id + "/exec",
                Map.of("command", List.of("sh", "-c", "echo hi > /data/after && cat /data/after >/dev/null && echo ok")))
                .path("stdout").asText().strip(), "ok"::equals);
        assertEquals("ok", again, "and writes again once freed");
        var grown = patch(id, Map.of("disk_mb", 512));
        assertEquals(512, grown.path("resources").path("disk_mb").asInt());
        assertTrue(Integer.parseInt(run(id, "df -m /data | tail -1 | awk '{print $2}'")) <= 256, "not while it runs");
        admin.post("/computers/" + id + "/sleep", Map.of());
        // Its next start (here a wake) grows it: a file system in use grows only with CAP_SYS_RESOURCE.
        assertTrue(Integer.parseInt(run(id, "df -m /data | tail -1 | awk '{print $2}'")) > 400, "grown from the next start");
        assertEquals("ok", run(id, "cat /data/after >/dev/null && echo ok"), "with what it held");
        assertError(admin.send("PATCH", "/computers/" + id, Map.of("resources", Map.of("disk_mb", 300)), Map.of()),
                400, "invalid_request");
        admin.delete("/computers/" + id);
        assertTrue(Eventually.eventually(Duration.ofSeconds(30), () -> Files.notExists(image)), "its disk goes with it");
    }

    @Test
    void aComputersUrlIsAlwaysAHostName() {
        String wsName = TestServer.uniqueName("w").repeat(4).substring(0, 40);
        String longWs = admin.create("/workspaces", Map.of("name", wsName)).path("workspace").path("id").asText();
        var tooLong = admin.send("POST", "/workspaces/" + longWs + "/computers",
                Map.of("name", "c".repeat(22), "image", "hearth/busybox"), TestComputers.key());
        assertError(tooLong, 400, "invalid_request");
        assertTrue(tooLong.body().path("error").path("message").asText().contains("64 characters"), tooLong.body().toString());
        var fits = TestComputers.create(admin, longWs, "c".repeat(21), "hearth/busybox", Map.of());
        assertEquals(63, fits.path("url").asText().split("//")[1].split("\\.")[0].length());
        var withPort = admin.send("PATCH", "/computers/" + fits.path("id").asText(),
                Map.of("ports", List.of(Map.of("target", 8080))), Map.of());
        assertError(withPort, 400, "invalid_request");
        var renamed = admin.send("PATCH", "/workspaces/" + longWs, Map.of("name", wsName + "x"), Map.of());
        assertError(renamed, 400, "invalid_request");
        admin.delete("/computers/" + fits.path("id").asText());
        assertEquals(wsName + "x", admin.patch("/workspaces/" + longWs, Map.of("name", wsName + "x"))
                .path("workspace").path("name").asText(), "with the computer gone the name is free to grow");
    }

    private JsonNode patch(String id, Map<String, Object> resources) {
        var r = admin.send("PATCH", "/computers/" + id, Map.of("resources", resources), Map.of());
        assertEquals(200, r.status(), r.body().toString());
        return r.body().path("computer");
    }

    private String run(String computer, String script) {
        return TestComputers.run(admin, computer, script);
    }

    /** The script's output if it ran to exit 0, else why not (its stderr, say "can't fork"). */
    private String runOrWhy(String computer, String script) {
        var r = admin.send("POST", "/computers/" + computer + "/exec", Map.of("command", List.of("sh", "-c", script)),
                Map.of());
        var body = r.body();
        return r.status() == 200 && body.path("exit_code").asInt() == 0 ? body.path("stdout").asText().strip()
                : "not yet: " + r.status() + " " + body;
    }

    private long count(String computer) {
        return Long.parseLong(run(computer, "cat /tmp/count"));
    }
}
