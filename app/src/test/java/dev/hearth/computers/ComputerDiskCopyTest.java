package dev.hearth.computers;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.server.Config;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestMetrics;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Computers' disks on the XFS volume Hearth makes when the data directory has no reflinks (this
 * host's /tmp is ext4): a checkpoint's /data is a copy of the computer's disk that shares its blocks,
 * and forks and restores get copies of that copy, each on its own from its first write.
 */
@HearthServerTest(computers = true, config = "withMetrics")
class ComputerDiskCopyTest {
    private static final String SUM = "md5sum /data/blob | cut -d' ' -f1";
    private static final long MIB = 1L << 20;

    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;
    private final int metricsPort;

    ComputerDiskCopyTest() throws Exception {
        metricsPort = TestMetrics.freePort();
    }

    UnaryOperator<Config> withMetrics() {
        return c -> c.withMetricsListen(Optional.of("127.0.0.1:" + metricsPort));
    }

    @BeforeAll
    void start() {
        ws = TestServer.workspace(admin).path("id").asText();
        TestComputers.pull(admin, ws, "hearth/busybox");
    }

    @Test
    void aCheckpointSharesTheDiskAndEveryCopyOfItDivergesAlone() throws Exception {
        Path volume = server.dataDir.resolve("disks");
        assertEquals("xfs", Files.getFileStore(volume).type());
        String id = TestComputers.create(admin, ws, "big", "hearth/busybox",
                Map.of("resources", Map.of("disk_mb", 1024))).path("id").asText();
        // head -c, not dd: a read of /dev/urandom may come back short, and dd counts it as a whole block.
        run(id, "head -c 134217728 /dev/urandom > /data/blob && sync");
        String sum = run(id, SUM);

        // The data directory's own file system holds the volume's image, the checkpoint's memory and all.
        long usedBefore = used(server.dataDir);
        String scrapedBefore = TestMetrics.scrape(metricsPort);
        var checkpoint = awaitReady(id, post("/computers/" + id + "/checkpoints", Map.of("name", "full")));
        String chk = checkpoint.path("id").asText();
        assertTrue(checkpoint.path("size_bytes").asLong() >= 128 * MIB, "the logical size: " + checkpoint);
        long more = used(server.dataDir) - usedBefore;
        assertTrue(more < 32 * MIB, "the copy of 128 MiB shares its blocks: " + more / MIB + " MiB more used");
        // /metrics shows it too: the files on the volume hold 128 MiB more, the volume uses hardly more.
        String scraped = TestMetrics.scrape(metricsPort);
        long files = volumeBytes(scraped, "allocated") - volumeBytes(scrapedBefore, "allocated");
        long volumeUsed = volumeBytes(scraped, "used") - volumeBytes(scrapedBefore, "used");
        assertTrue(files >= 120 * MIB && volumeUsed < 32 * MIB, files / MIB + " MiB more in files, "
                + volumeUsed / MIB + " MiB more used");

        String fork = fork("big-fork", chk, Map.of());
        assertEquals(sum, run(fork, SUM));
        run(fork, "dd if=/dev/urandom of=/data/blob bs=1M count=1 conv=notrunc 2>/dev/null && sync");
        assertNotEquals(sum, run(fork, SUM));
        assertEquals(sum, run(id, SUM), "the source is untouched by its fork's writes");

        run(id, "rm /data/blob; echo new > /data/new");
        var restored = admin.send("POST", "/computers/" + id + "/restore", Map.of("checkpoint", "full"), Map.of());
        assertEquals(200, restored.status(), () -> restored.body().toString());
        assertEquals(sum, run(id, SUM));
        assertEquals("gone", run(id, "test -e /data/new && echo there || echo gone"));
        assertNotEquals(sum, run(fork, SUM), "the fork is untouched by its source's restore");
    }

    @Test
    void aCopyOfADiskIsNoSmallerThanItAndOutlivesARestartAsDoesAFreezeLeftByACrash() throws Exception {
        String id = TestComputers.create(admin, ws, "kept", "hearth/busybox",
                Map.of("resources", Map.of("disk_mb", 512))).path("id").asText();
        run(id, "echo kept > /data/note && sync");
        String chk = awaitReady(id, post("/computers/" + id + "/checkpoints", Map.of("name", "note")))
                .path("id").asText();

        assertError(admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "small",
                "from_checkpoint", chk, "resources", Map.of("disk_mb", 256)), TestComputers.key()), 400, "invalid_request");

        // A hearth serve killed between the freeze and the thaw of a copy leaves the disk frozen: its
        // next start thaws it, or the computer's next write to /data would wait for ever.
        sh("fsfreeze", "--freeze", server.dataDir.resolve("computers").resolve(id).toString());
        server.restart();
        run(id, "echo after > /data/note && sync");
        assertEquals("after", run(id, "cat /data/note"));
        String fork = fork("after-restart", chk, Map.of("resources", Map.of("disk_mb", 768)));
        assertEquals("kept", run(fork, "cat /data/note"));
        // The copied disk of 512 MB grew to the fork's 768 (df shows a little less: ext4's own blocks).
        int mb = Integer.parseInt(run(fork, "df -m /data | tail -1 | awk '{print $2}'"));
        assertTrue(mb > 700 && mb <= 768, "df shows " + mb + " MB");
    }

    private static void sh(String... command) throws Exception {
        var p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
    }

    private static long volumeBytes(String scraped, String kind) {
        var m = Pattern.compile("(?m)^hearth_volume_bytes\\{kind=\"" + kind + "\",volume=\"disks\"} (\\S+)$")
                .matcher(scraped);
        assertTrue(m.find(), scraped);
        return (long) Double.parseDouble(m.group(1));
    }

    private static long used(Path dir) throws Exception {
        var store = Files.getFileStore(dir);
        return store.getTotalSpace() - store.getUnallocatedSpace();
    }

    private String fork(String name, String checkpoint, Map<String, Object> extra) {
        var body = new LinkedHashMap<String, Object>(Map.of("name", name, "from_checkpoint", checkpoint));
        body.putAll(extra);
        var r = post("/workspaces/" + ws + "/computers", body);
        assertEquals("ready", r.path("computer").path("state").asText(), r::toString);
        return r.path("computer").path("id").asText();
    }

    private JsonNode post(String path, Map<String, Object> body) {
        var r = admin.send("POST", path, body, TestComputers.key());
        assertTrue(r.status() == 201 || r.status() == 202, () -> r.body().toString());
        return r.body();
    }

    private JsonNode awaitReady(String computer, JsonNode made) {
        String op = made.path("operations").get(0).asText();
        var done = admin.get("/operations/" + op + "?wait=60").path("operation");
        assertEquals("succeeded", done.path("state").asText(), done.toString());
        return admin.get("/computers/" + computer + "/checkpoints/" + made.path("checkpoint").path("id").asText())
                .path("checkpoint");
    }

    private String run(String computer, String script) {
        return TestComputers.run(admin, computer, script);
    }
}
