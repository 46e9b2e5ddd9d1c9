package dev.hearth.computers;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints, restore in place and forks on real sandboxes. The image's main process counts in
 * memory and appends each count to /data/log: after any restore the log must run on from the
 * restored memory with no gap and no repeat, which holds only if memory and /data were taken at
 * the same instant.
 */
@HearthServerTest(computers = true)
class CheckpointTest {
    // Prints "ok" when /data/log is 1, 2, 3 ... with no gap or repeat, else the first bad line.
    private static final String LOG_IS_CONTIGUOUS =
            "awk 'NR != $1 { print \"line \" NR \" is \" $1; bad = 1; exit } END { if (!bad) print \"ok\" }' /data/log";

    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;
    private String image;

    @BeforeAll
    void start(@TempDir Path tmp) throws Exception {
        ws = TestServer.workspace(admin).path("id").asText();
        image = TestImages.logger(tmp);
        TestComputers.pull(admin, ws, image);
    }

    @Test
    void aCheckpointLeavesTheComputerRunningAndRestoreRollsItBack() throws Exception {
        String id = create("roll", Map.of()).path("id").asText();
        run(id, "sleep 0.3; echo one > /data/marker; echo one > /marker");
        String pid = run(id, TestImages.COUNTER_PID);

        var made = checkpoint(id, "before");
        assertEquals("creating", made.path("checkpoint").path("state").asText());
        assertEquals(1, made.path("operations").size());
        var checkpoint = awaitReady(id, made);
        assertEquals("computer", checkpoint.path("source_type").asText());
        assertEquals(id, checkpoint.path("source").asText());
        assertEquals("before", checkpoint.path("name").asText());
        assertEquals("crash", checkpoint.path("consistency").asText());
        assertEquals(1, checkpoint.path("generation").asInt());
        assertTrue(checkpoint.path("image_digest").asText().startsWith("sha256:"), checkpoint.toString());
        assertTrue(checkpoint.path("size_bytes").asLong() > 0, checkpoint.toString());
        assertTrue(checkpoint.path("parent").isNull());
        assertTrue(checkpoint.path("error").isNull());

        // Undisturbed: the same process counts on.
        long atCheckpoint = count(id);
        Thread.sleep(300);
        assertTrue(count(id) > atCheckpoint);
        assertEquals(pid, run(id, "cat /tmp/counter.pid"));

        run(id, "echo two > /data/marker; echo two > /marker; touch /data/extra; sleep 1");
        long beforeRestore = count(id);
        var restored = admin.send("POST", "/computers/" + id + "/restore", Map.of("checkpoint", "before"), Map.of());
        assertEquals(200, restored.status(), () -> restored.body().toString());
        assertEquals(2, restored.body().path("computer").path("generation").asInt());
        assertEquals("ready", restored.body().path("computer").path("state").asText());
        assertTrue(count(id) < beforeRestore, "memory went back to the checkpoint");
        assertEquals(pid, run(id, "cat /tmp/counter.pid"));
        assertEquals("one one", run(id, "cat /data/marker /marker | tr '\\n' ' '"));
        assertEquals("gone", run(id, "test -e /data/extra && echo there || echo gone"));
        Thread.sleep(200);
        assertEquals("ok", run(id, LOG_IS_CONTIGUOUS));

        // The next checkpoint names this one as its parent and carries the new generation.
        var second = awaitReady(id, checkpoint(id, "after"));
        assertEquals(checkpoint.path("id").asText(), second.path("parent").asText());
        assertEquals(2, second.path("generation").asInt());
    }

    @Test
    void aCheckpointTakenWhileAWriterHammersDataIsConsistent() throws Exception {
        String id = create("hammer", Map.of()).path("id").asText();
        // The main process appends to /data/log every 20 ms, through every checkpoint.
        for (int round = 0; round < 3; round++) {
            var checkpoint = awaitReady(id, checkpoint(id, "k" + round));
            String fork = fork("hammer-fork-" + round, checkpoint.path("id").asText()).path("id").asText();
            Thread.sleep(200);
            assertEquals("ok", run(fork, LOG_IS_CONTIGUOUS), "round " + round);
            admin.delete("/computers/" + fork);
        }
        assertEquals("ok", run(id, LOG_IS_CONTIGUOUS));
    }

    @Test
    void aCheckpointOfAComputerThatWritesDataNowAndThenIsConsistent() throws Exception {
        // Writes every 0.2 s: /data is sometimes quiet (copied while the computer runs) and sometimes
        // not, or changes during the checkpoint (then it is taken again, paused). Consistent either way.
        String id = create("now-and-then", Map.of("env", Map.of("LOG_EVERY", "0.2"))).path("id").asText();
        for (int round = 0; round < 5; round++) {
            Thread.sleep(70L * round);
            var checkpoint = awaitReady(id, checkpoint(id, "k" + round));
            String fork = fork("now-and-then-" + round, checkpoint.path("id").asText()).path("id").asText();
            Thread.sleep(300);
            assertEquals("ok", run(fork, LOG_IS_CONTIGUOUS), "round " + round);
            admin.delete("/computers/" + fork);
        }
    }

    @Test
    void forksStartFromTheCheckpointAndDivergeIndependently() throws Exception {
        var source = create("origin", Map.of("env", Map.of("GREETING", "hello")));
        String id = source.path("id").asText();
        run(id, "echo shared > /data/who; echo shared > /who");
        String pid = run(id, TestImages.COUNTER_PID);
        var checkpoint = awaitReady(id, checkpoint(id, "base"));
        String chk = checkpoint.path("id").asText();

        var forks = new ArrayList<String>();
        for (int i = 0; i < 3; i++) {
            var fork = fork("branch-" + i, chk);
            assertEquals("ready", fork.path("state").asText(), fork.toString());
            assertEquals(id, fork.path("parent").asText());
            assertEquals(chk, fork.path("from_checkpoint").asText());
            assertEquals(1, fork.path("generation").asInt());
            assertEquals(source.path("image_digest").asText(), fork.path("image_digest").asText());
            assertEquals(List.of("GREETING"), List.of(fork.path("env_keys").get(0).asText()));
            forks.add(fork.path("id").asText());
        }
        for (int i = 0; i < forks.size(); i++) {
            String f = forks.get(i);
            assertEquals(pid, run(f, "cat /tmp/counter.pid"), "the checkpoint's process, not a new one");
            assertEquals("shared shared", run(f, "cat /data/who /who | tr '\\n' ' '"));
            assertEquals("hello", run(f, "echo $GREETING"));
            run(f, "echo " + i + " > /data/who; echo " + i + " > /who");
        }
        for (int i = 0; i < forks.size(); i++) {
            assertEquals(i + " " + i, run(forks.get(i), "cat /data/who /who | tr '\\n' ' '"));
        }
        assertEquals("shared shared", run(id, "cat /data/who /who | tr '\\n' ' '"));
        long a = count(forks.get(0));
        Thread.sleep(300);
        assertTrue(count(forks.get(0)) > a, "a fork's process runs on");
    }

    @Test
    void aKeptCheckpointOutlivesItsComputerAndNewComputersStartFromIt() throws Exception {
        String id = create("template-source", Map.of()).path("id").asText();
        run(id, "echo template > /data/what; echo template > /what");
        var r = admin.send("POST", "/computers/" + id + "/checkpoints", Map.of("name", "golden", "keep", true), key());
        assertEquals(202, r.status(), () -> r.body().toString());
        var kept = awaitReady(id, r.body());
        assertTrue(kept.path("kept").asBoolean(), kept.toString());
        String chk = kept.path("id").asText();
        var plain = awaitReady(id, checkpoint(id, "ephemeral"));

        admin.delete("/computers/" + id);
        var listed = admin.get("/workspaces/" + ws + "/checkpoints").path("checkpoints");
        assertEquals(List.of(chk), idsOf(listed), "only the kept one outlives its computer");
        assertEquals("golden", admin.get("/workspaces/" + ws + "/checkpoints/" + chk).path("checkpoint").path("name").asText());
        var gone = assertThrows(ApiException.class, () -> admin.get("/workspaces/" + ws + "/checkpoints/"
                + plain.path("id").asText()));
        assertEquals(404, gone.status());

        for (int i = 0; i < 2; i++) {
            var copy = fork("from-golden-" + i, chk);
            assertEquals("template template", run(copy.path("id").asText(), "cat /data/what /what | tr '\\n' ' '"));
        }
        deleteComputers();
        var held = admin.send("DELETE", "/workspaces/" + ws, null, Map.of());
        assertEquals(409, held.status(), held.body()::toString);
        assertTrue(held.body().toString().contains("kept checkpoints"), held.body()::toString);
        String deleting = admin.delete("/workspaces/" + ws + "/checkpoints/" + chk).path("operations").get(0).asText();
        assertEquals("succeeded", admin.get("/operations/" + deleting + "?wait=60").path("operation").path("state").asText());
        assertEquals(List.of(), idsOf(admin.get("/workspaces/" + ws + "/checkpoints").path("checkpoints")));
        var noMore = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "too-late",
                "from_checkpoint", chk), key());
        assertEquals(400, noMore.status(), noMore.body()::toString);
        assertTrue(noMore.body().toString().contains("from_checkpoint"), noMore.body()::toString);
    }

    @Test
    void aSleepingComputerIsCheckpointedFromItsSleepImageAndStaysAsleep() throws Exception {
        String id = create("napper", Map.of()).path("id").asText();
        run(id, "echo asleep > /data/note");
        String pid = run(id, TestImages.COUNTER_PID);
        var slept = admin.send("POST", "/computers/" + id + "/sleep", Map.of(), Map.of());
        assertEquals(200, slept.status(), () -> slept.body().toString());

        var checkpoint = awaitReady(id, checkpoint(id, "nap"));
        assertEquals("sleeping", admin.get("/computers/" + id).path("computer").path("state").asText());
        String fork = fork("napper-fork", checkpoint.path("id").asText()).path("id").asText();
        assertEquals(pid, run(fork, "cat /tmp/counter.pid"));
        assertEquals("asleep", run(fork, "cat /data/note"));
        assertEquals("sleeping", admin.get("/computers/" + id).path("computer").path("state").asText());
        // Restoring a sleeping computer wakes it into the checkpoint.
        var restored = admin.send("POST", "/computers/" + id + "/restore", Map.of("checkpoint", checkpoint.path("id").asText()),
                Map.of());
        assertEquals(200, restored.status(), () -> restored.body().toString());
        assertEquals("ready", restored.body().path("computer").path("state").asText());
        assertEquals(pid, run(id, "cat /tmp/counter.pid"));
    }

    @Test
    void aCheckpointWaitsForRunningExecsAndDoesNotKillThem() throws Exception {
        String id = create("patient", Map.of()).path("id").asText();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var exec = pool.submit(() -> admin.send("POST", "/computers/" + id + "/exec",
                    Map.of("command", List.of("sh", "-c", "sleep 2; echo finished")), Map.of()));
            Thread.sleep(300);
            var checkpoint = awaitReady(id, checkpoint(id, "waited"));
            var answer = exec.get();
            assertEquals(0, answer.body().path("exit_code").asInt(), () -> answer.body().toString());
            assertEquals("finished", answer.body().path("stdout").asText().strip());
            String fork = fork("patient-fork", checkpoint.path("id").asText()).path("id").asText();
            assertEquals("ok", run(fork, LOG_IS_CONTIGUOUS));
        }
    }

    @Test
    void listingIsNewestFirstAndDeletingRemovesCheckpointsAndTheirFiles() throws Exception {
        String id = create("lister", Map.of()).path("id").asText();
        var ids = new ArrayList<String>();
        for (String name : List.of("a", "b", "c")) {
            ids.add(awaitReady(id, checkpoint(id, name)).path("id").asText());
        }
        var first = admin.get("/computers/" + id + "/checkpoints?limit=2");
        assertEquals(List.of(ids.get(2), ids.get(1)), idsOf(first.path("checkpoints")));
        assertTrue(first.path("has_more").asBoolean());
        var second = admin.get("/computers/" + id + "/checkpoints?limit=2&cursor=" + first.path("next_cursor").asText());
        assertEquals(List.of(ids.get(0)), idsOf(second.path("checkpoints")));
        assertFalse(second.path("has_more").asBoolean());

        // Two deletes at once (a client's retry): each is answered 202 with a delete under way, or 404 once
        // it is done; a delete of one being deleted used to be a 500.
        var both = java.util.stream.Stream.of(1, 2).parallel()
                .map(i -> admin.send("DELETE", "/computers/" + id + "/checkpoints/" + ids.get(0), null, Map.of()))
                .toList();
        assertTrue(both.stream().anyMatch(r -> r.status() == 202), both::toString);
        assertTrue(both.stream().allMatch(r -> r.status() == 202 || r.status() == 404), both::toString);
        for (var answer : both.stream().filter(r -> r.status() == 202).toList()) {
            assertEquals("deleting", answer.body().path("checkpoint").path("state").asText());
            String op = answer.body().path("operations").get(0).asText();
            assertEquals("succeeded", admin.get("/operations/" + op + "?wait=60").path("operation").path("state")
                    .asText());
        }
        var gone = admin.get("/computers/" + id + "/checkpoints/" + ids.get(0)).path("checkpoint");
        assertFalse(gone.path("deleted_at").isNull());
        assertFalse(Files.exists(server.dataDir.resolve("checkpoints").resolve(ids.get(0))));
        assertEquals(List.of(ids.get(2), ids.get(1)), idsOf(admin.get("/computers/" + id + "/checkpoints")
                .path("checkpoints")));
        assertError(admin.send("POST", "/computers/" + id + "/restore", Map.of("checkpoint", ids.get(0)), Map.of()),
                404, "not_found");

        admin.delete("/computers/" + id);
        assertEquals(0, admin.get("/computers/" + id + "/checkpoints").path("checkpoints").size());
        for (String chk : ids) {
            assertFalse(Files.exists(server.dataDir.resolve("checkpoints").resolve(chk)), chk);
        }
        assertError(admin.send("POST", "/workspaces/" + ws + "/computers",
                Map.of("name", "orphan", "from_checkpoint", ids.get(1)), key()), 400, "invalid_request");
    }

    @Test
    void aCheckpointThatRunsOutOfDiskFailsCleanlyAndTheComputerRunsOn() throws Exception {
        String id = create("cramped", Map.of()).path("id").asText();
        String pid = run(id, TestImages.COUNTER_PID);
        Path checkpoints = Files.createDirectories(server.dataDir.resolve("checkpoints"));
        sh("mount -t tmpfs -o size=64k hearth-test-full " + checkpoints);
        try {
            var made = checkpoint(id, "toobig");
            String op = made.path("operations").get(0).asText();
            var done = admin.get("/operations/" + op + "?wait=60").path("operation");
            assertEquals("failed", done.path("state").asText(), done.toString());
            var failed = admin.get("/computers/" + id + "/checkpoints/toobig").path("checkpoint");
            assertEquals("failed", failed.path("state").asText());
            assertEquals("checkpoint_failed", failed.path("error").path("code").asText());
            assertFalse(failed.path("error").path("message").asText().isBlank());
            try (var left = Files.list(checkpoints)) {
                assertEquals(List.of(), left.toList(), "no files left behind");
            }
        } finally {
            sh("umount " + checkpoints);
        }
        assertEquals("ready", admin.get("/computers/" + id).path("computer").path("state").asText());
        assertEquals(pid, run(id, "cat /tmp/counter.pid"));
        long a = count(id);
        Thread.sleep(300);
        assertTrue(count(id) > a, "resumed after the failed checkpoint");
        // The name of a failed checkpoint can be used again.
        assertEquals("ready", awaitReady(id, checkpoint(id, "toobig")).path("state").asText());
    }

    /**
     * A process holding a connected UDP socket (a DNS client between lookups, a statsd client) keeps the
     * computer's own address in the checkpoint; forks live at other addresses, and a fork of a fork
     * inherits the first one's socket too. Every generation restores and answers.
     */
    @Test
    void aCheckpointHoldingAConnectedUdpSocketForksAndForksAgain(@TempDir Path tmp) throws Exception {
        // The socket is connected and waits for an answer to a query never sent: one that has not sent yet is
        // the kind a restore elsewhere cannot rebind. Processes started by exec do not outlive a restore, so
        // the main process holds it; with no way out nothing leaves this host.
        String holding = TestImages.withPrograms(tmp, "/bin/udphold & "
                + "i=0; while :; do i=$((i+1)); echo $i > /tmp/count.new; mv /tmp/count.new /tmp/count; sleep 0.1; done", Map.of("bin/udphold", """
                #include <arpa/inet.h>
                #include <netinet/in.h>
                #include <sys/socket.h>
                #include <unistd.h>
                int main(void) {
                    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(53)};
                    inet_pton(AF_INET, "10.9.9.9", &to.sin_addr);
                    int s = socket(AF_INET, SOCK_DGRAM, 0);
                    if (s < 0 || connect(s, (struct sockaddr *) &to, sizeof to) < 0) return 1;
                    char answer[512];
                    for (;;) recv(s, answer, sizeof answer, 0);
                }
                """));
        TestComputers.pull(admin, ws, holding);
        String id = TestComputers.create(admin, ws, "holding", holding, Map.of("network", Map.of("internet", false)))
                .path("id").asText();
        assertEquals("1", run(id, "sleep 1; grep -c ':0035 01' /proc/net/udp"), "a connected UDP socket");
        var first = awaitReady(id, checkpoint(id, "connected"));
        String fork = fork("holding-fork", first.path("id").asText()).path("id").asText();
        assertTrue(count(fork) > 0, "the fork's main process runs");
        var second = awaitReady(fork, checkpoint(fork, "inherited"));
        String grandchild = fork("holding-fork-2", second.path("id").asText()).path("id").asText();
        assertTrue(count(grandchild) > 0, "a fork of the fork runs too");
        var restored = admin.post("/computers/" + fork + "/restore", Map.of("checkpoint", "inherited"));
        assertEquals("ready", restored.path("computer").path("state").asText(), restored.toString());
        assertTrue(count(fork) > 0, "the fork restored in place runs");
        admin.post("/computers/" + grandchild + "/sleep", Map.of());
        assertTrue(count(grandchild) > 0, "and the fork of the fork wakes");
        for (String c : List.of(id, fork, grandchild)) {
            admin.delete("/computers/" + c);
        }
    }

    @Test
    void badRequestsAreRefusedClearly() {
        String id = create("strict", Map.of()).path("id").asText();
        assertError(admin.send("POST", "/computers/" + id + "/checkpoints", Map.of("name", "no spaces"), key()),
                400, "invalid_request");
        assertError(admin.send("POST", "/computers/" + id + "/checkpoints", Map.of("name", 5), key()),
                400, "invalid_request");
        assertError(admin.send("POST", "/computers/" + id + "/checkpoints", Map.of("name", "x"), Map.of()),
                400, "idempotency_key_required");
        assertError(admin.send("POST", "/computers/" + id + "/restore", Map.of(), Map.of()), 400, "invalid_request");
        assertError(admin.send("POST", "/computers/" + id + "/restore", Map.of("checkpoint", "nope"), Map.of()),
                404, "not_found");
        assertError(admin.send("GET", "/computers/" + id + "/checkpoints/nope", null, Map.of()), 404, "not_found");
        assertError(admin.send("POST", "/workspaces/" + ws + "/computers",
                Map.of("name", "bad-fork", "from_checkpoint", "0000000000000000000000000"), key()), 400, "invalid_request");
        var chk = awaitReady(id, checkpoint(id, "once")).path("id").asText();
        assertError(admin.send("POST", "/computers/" + id + "/checkpoints", Map.of("name", "once"), key()),
                409, "conflict");
        assertError(admin.send("POST", "/workspaces/" + ws + "/computers",
                Map.of("name", "other-image", "from_checkpoint", chk, "image", "hearth/busybox"), key()),
                400, "invalid_request");
        // Another computer cannot be restored from this one's checkpoint.
        String other = create("bystander", Map.of()).path("id").asText();
        assertError(admin.send("POST", "/computers/" + other + "/restore", Map.of("checkpoint", chk), Map.of()),
                404, "not_found");
        assertNotEquals(0, admin.get("/computers/" + id + "/checkpoints").path("checkpoints").size());
    }

    // ---- helpers

    /**
     * Every computer of this class logs every 20 ms: a dozen left running want more CPU than the two
     * cores of CI have, and the rest of the class crawls (a checkpoint then takes a minute).
     */
    @AfterEach
    void deleteComputers() {
        for (var c : admin.get("/workspaces/" + ws + "/computers?limit=100").path("computers")) {
            try {
                admin.delete("/computers/" + c.path("id").asText());
            } catch (ApiException leftAlone) {
                // a protected one, or one a test already removed: nothing to stop here
            }
        }
    }

    private JsonNode create(String name, Map<String, Object> extra) {
        return TestComputers.create(admin, ws, name, image, extra);
    }

    private JsonNode fork(String name, String checkpoint) {
        var r = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", name, "from_checkpoint", checkpoint),
                key());
        assertEquals(201, r.status(), () -> r.body().toString());
        return r.body().path("computer");
    }

    private JsonNode checkpoint(String computer, String name) {
        var r = admin.send("POST", "/computers/" + computer + "/checkpoints", Map.of("name", name), key());
        assertEquals(202, r.status(), () -> r.body().toString());
        return r.body();
    }

    private JsonNode awaitReady(String computer, JsonNode made) {
        String op = made.path("operations").get(0).asText();
        var done = admin.get("/operations/" + op + "?wait=60").path("operation");
        assertEquals("succeeded", done.path("state").asText(), done.toString());
        var checkpoint = admin.get("/computers/" + computer + "/checkpoints/" + made.path("checkpoint").path("id").asText())
                .path("checkpoint");
        assertEquals("ready", checkpoint.path("state").asText(), checkpoint.toString());
        return checkpoint;
    }

    private String run(String computer, String script) {
        return TestComputers.run(admin, computer, script);
    }

    private long count(String computer) {
        return Long.parseLong(run(computer, "cat /tmp/count"));
    }

    private static List<String> idsOf(JsonNode items) {
        var ids = new ArrayList<String>();
        items.forEach(i -> ids.add(i.path("id").asText()));
        return ids;
    }

    private static Map<String, String> key() {
        return TestComputers.key();
    }

    private static void sh(String script) throws Exception {
        var p = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
    }
}
