package dev.hearth.computers;

import static dev.hearth.support.TestComputers.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.server.pool.PoolSettings;
import dev.hearth.server.pool.PooledSandbox;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestMetrics;
import dev.hearth.support.TestPool;
import dev.hearth.support.TestServer;
import java.io.ByteArrayInputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A computer claimed from the warm pool is one started cold: the same checks, read from inside, on
 * one of each made with the same settings (its name as hostname, its environment in its main
 * process and commands, limits, capabilities, /data, its rules, sleep, checkpoint and fork).
 */
@HearthServerTest(config = "pooled", computers = true)
class PooledComputerTest {
    private static final String MAIN = "echo \"$FOO $(hostname)\" > /tmp/main.txt; mkdir -p /tmp/www; "
            + "echo hello-$(hostname) > /tmp/www/index.html; exec httpd -f -p 8080 -h /tmp/www";
    // What is read from inside each twin; the two must agree.
    private static final String LOOK = "echo host=$(hostname); grep -c \"$(hostname)$\" /etc/hosts; cat /tmp/main.txt; "
            + "echo FOO=$FOO; env | grep -c HEARTH_AGENT || true; grep -E 'Cap(Bnd|Eff|Prm|Inh)' /proc/self/status; "
            + "grep MemTotal /proc/meminfo; ulimit -u; ls -A /data | wc -l; df -m /data | tail -1 | awk '{print $2}'";

    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;
    private String pooled;
    private String cold;
    private String debian;
    // What each showed from inside right after its create.
    private Map<String, String> pooledAtFirst;
    private Map<String, String> coldAtFirst;

    private final int metricsPort;

    PooledComputerTest() throws Exception {
        metricsPort = TestMetrics.freePort();
    }

    UnaryOperator<Config> pooled() throws Exception {
        String pool = "hearth/busybox=1," + TestImages.debian() + "=1";
        return c -> c.withPool(PoolSettings.parse(pool)).withMetricsListen(Optional.of("127.0.0.1:" + metricsPort));
    }

    /** How many creates the pool served (claims) and how many started cold, from /metrics. */
    private List<Long> creates() throws Exception {
        return List.of(TestMetrics.count(metricsPort, "hearth_computer_claim_seconds"),
                TestMetrics.count(metricsPort, "hearth_computer_create_seconds"));
    }

    @BeforeAll
    void twins() throws Exception {
        ws = TestServer.workspace(admin).path("id").asText();
        var ready = readyPool("hearth/busybox");
        String waiting = ready.iterator().next() + "-0001";
        long cpu = cpuNanos(waiting);
        Thread.sleep(300);
        assertEquals(cpu, cpuNanos(waiting), "a pooled sandbox waits frozen: no CPU");
        pooled = create("pooled").path("id").asText();
        assertEquals(ready, Set.of(pooled), "the first create claimed the pooled sandbox");
        assertEquals(List.of(1L, 0L), creates(), "timed as a claim, not as a cold create");
        // An image the workspace pulled (the same digest as the pool's): a glibc Debian with python3.
        TestComputers.pull(admin, ws, TestImages.debian());
        var readyDebian = readyPool(TestImages.debian());
        debian = TestComputers.create(admin, ws, "deb", TestImages.debian(), Map.of("env", Map.of("FOO", "bar")))
                .path("id").asText();
        assertEquals(readyDebian, Set.of(debian), "claimed from the pool too");
        // The same settings on a server without a pool: started cold. The restart also adopts the claimed one.
        server.restart(c -> c.withPool(PoolSettings.NONE));
        assertTrue(server.server().pool().sandboxes().isEmpty(), "the pool went with the server that had it");
        cold = create("cold").path("id").asText();
        assertEquals(List.of(0L, 1L), creates(), "a new server's counts: one cold create");
        pooledAtFirst = look(pooled);
        coldAtFirst = look(cold);
    }

    private Set<String> readyPool(String image) throws InterruptedException {
        return TestPool.awaitReady(() -> server.server().pool(), image, 1).stream().map(PooledSandbox::id)
                .collect(Collectors.toSet());
    }

    private long cpuNanos(String sandboxId) throws Exception {
        return TestComputers.cpuNanos(server.dataDir, sandboxId);
    }

    private JsonNode create(String name) {
        return TestComputers.create(admin, ws, name, "hearth/busybox", Map.of("env", Map.of("FOO", "bar"),
                "command", List.of("sh", "-c", MAIN), "network", Map.of("internet", false)));
    }

    private String run(String computer, String script) {
        return TestComputers.run(admin, computer, script);
    }

    private Map<String, String> look(String computer) {
        var seen = new LinkedHashMap<String, String>();
        String[] lines = run(computer, LOOK).split("\n");
        String[] names = {"hostname", "hosts lines", "main process saw", "FOO", "agent variables", "CapInh", "CapPrm",
                "CapEff", "CapBnd", "MemTotal", "max user processes", "files in /data", "MiB of /data"};
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            seen.put(i < names.length ? names[i] : "line " + i, line.replaceAll("\\b(pooled|cold)\\b", "NAME"));
        }
        return seen;
    }

    @Test
    void bothShowTheSameFromInsideTheirNameAndEnvironmentEverywhere() {
        var fromPool = pooledAtFirst;
        assertEquals(coldAtFirst, fromPool);
        assertEquals("host=NAME", fromPool.get("hostname"));
        assertEquals("1", fromPool.get("hosts lines"));
        assertEquals("bar NAME", fromPool.get("main process saw"), "the main process started with its env and name");
        assertEquals("FOO=bar", fromPool.get("FOO"));
        assertEquals("0", fromPool.get("agent variables"), "the agent's secret is nobody's");
        assertEquals("0", fromPool.get("files in /data"), "an empty /data");
        assertTrue(fromPool.get("CapBnd").endsWith("a80405fb"), "Docker's capabilities, no CAP_SYS_ADMIN: "
                + fromPool.get("CapBnd"));
    }

    @Test
    void aDebianComputerFromThePoolRunsPythonUnderItsNameWithItsEnvironment() {
        assertEquals("deb bar", run(debian, "python3 -c 'import os, socket; print(socket.gethostname(), os.environ[\"FOO\"])'"));
        assertEquals("deb", run(debian, "getent hosts deb | awk '{print $2}'"), "glibc resolves its own name");
    }

    @Test
    void bothListTheirMainProcessAndServeFilesAlike() throws Exception {
        for (String c : List.of(pooled, cold)) {
            var main = admin.get("/computers/" + c + "/processes").path("processes").get(0);
            assertEquals(List.of("sh", "-c", MAIN), List.of(main.path("command").get(0).asText(),
                    main.path("command").get(1).asText(), main.path("command").get(2).asText()), main::toString);
            assertEquals("running", main.path("state").asText(), main::toString);
            byte[] bytes = {0, (byte) 0xff, 10, 13, 'x'};
            admin.upload("/computers/" + c + "/files?path=/data/bytes", "application/octet-stream",
                    () -> new ByteArrayInputStream(bytes));
            try (var in = admin.download("/computers/" + c + "/files?path=/data/bytes")) {
                assertArrayEquals(bytes, in.readAllBytes());
            }
            run(c, "rm /data/bytes");
        }
    }

    @Test
    void eachReachesTheOtherByNameThroughItsRules() {
        // Names resolve through the workspace's DNAT to the resolver: a sandbox without its rules has none.
        assertEquals("hello-cold", run(pooled, "wget -qO- http://cold:8080/"));
        assertEquals("hello-pooled", run(cold, "wget -qO- http://pooled:8080/"));
    }

    @Test
    void bothSleepWakeCheckpointAndForkAlike() {
        for (String c : List.of(pooled, cold)) {
            String name = c.equals(pooled) ? "pooled" : "cold";
            run(c, "echo kept > /data/kept; echo in-memory > /tmp/mem");
            var slept = admin.send("POST", "/computers/" + c + "/sleep", Map.of(), Map.of());
            assertEquals("sleeping", slept.body().path("computer").path("state").asText(), slept.body()::toString);
            assertEquals("in-memory kept", run(c, "cat /tmp/mem /data/kept | tr '\\n' ' '"), "woken where it stood");

            var cp = admin.send("POST", "/computers/" + c + "/checkpoints", Map.of(), key());
            String op = cp.body().path("operations").get(0).asText();
            assertEquals("succeeded", admin.get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
            var forked = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "fork-of-" + name,
                    "from_checkpoint", cp.body().path("checkpoint").path("id").asText()), key());
            assertEquals(201, forked.status(), forked.body()::toString);
            String fork = forked.body().path("computer").path("id").asText();
            assertEquals("in-memory kept bar", run(fork, "cat /tmp/mem /data/kept | tr '\\n' ' '; echo $FOO"));
            assertFalse(run(fork, "cat /tmp/main.txt").isEmpty());
        }
    }
}
