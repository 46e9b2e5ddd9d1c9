package dev.hearth.computers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.support.Eventually;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ready computers frozen while idle, on real sandboxes: one left alone stops using CPU yet stays
 * ready, and the first request of every kind reaches it as if it had never stopped (an exec, a file,
 * a router request, a new connection from another computer, a packet on a connection it holds, a
 * database connection it holds). One that runs a command of the API, or says
 * {@code freeze_when_idle: false}, keeps running. The server here freezes after 2 s idle (10 s by default).
 */
@HearthServerTest(computers = true, databases = true, config = "freezingSoon")
class IdleFreezeTest {
    private static final String SSL_REQUEST = "\\000\\000\\000\\010\\004\\322\\026\\057";
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;
    private String web;

    static UnaryOperator<Config> freezingSoon() {
        return c -> c.withSleep(c.sleep().freezingIdleAfter(Duration.ofSeconds(2)));
    }

    @BeforeAll
    void start(@TempDir Path tmp) throws Exception {
        ws = TestServer.workspace(admin).path("id").asText();
        web = TestImages.web(tmp);
        TestComputers.pull(admin, ws, web);
    }

    private String create(String name, Map<String, Object> extra) {
        return TestComputers.create(admin, ws, name, "hearth/busybox", extra).path("id").asText();
    }

    private JsonNode computer(String id) {
        return admin.get("/computers/" + id).path("computer");
    }

    private String sh(String computer, String script) {
        return TestComputers.run(admin, computer, script);
    }

    private void awaitFrozen(String id) {
        var seen = Eventually.eventually(Duration.ofSeconds(30), () -> computer(id),
                c -> !c.path("frozen_since").isNull());
        assertFalse(seen.path("frozen_since").isNull(), () -> "not frozen: " + seen);
    }

    private double cpuSeconds(String id) {
        return admin.get("/computers/" + id + "/metrics").path("metrics").path("cpu_seconds").asDouble();
    }

    /**
     * CPU seconds it used across 1.5 s in which it stayed frozen: the same freeze before and after
     * (a stray packet may thaw it, and it freezes again 2 s later; that span is measured anew).
     */
    private double cpuWhileFrozen(String id) throws InterruptedException {
        for (int attempt = 0; ; attempt++) {
            awaitFrozen(id);
            String since = computer(id).path("frozen_since").asText();
            double before = cpuSeconds(id);
            Thread.sleep(1500);
            double after = cpuSeconds(id);
            if (since.equals(computer(id).path("frozen_since").asText()) || attempt == 4) {
                return after - before;
            }
        }
    }

    @Test
    void anIdleComputerStopsUsingCpuStaysReadyAndItsFirstExecAnswers() throws Exception {
        String id = create("quiet", Map.of());
        sh(id, "echo before > /tmp/note");
        awaitFrozen(id);
        var frozen = computer(id);
        assertEquals("ready", frozen.path("state").asText(), "frozen while idle is invisible to its state");
        assertTrue(frozen.path("freeze_when_idle").asBoolean(), "on by default");
        assertEquals(0, cpuWhileFrozen(id), 1e-9, "a frozen computer uses no CPU at all");
        assertEquals("before", sh(id, "cat /tmp/note"), "the first exec answers, where it stood");
        assertTrue(computer(id).path("frozen_since").isNull(), "thawed by the exec");
        admin.delete("/computers/" + id);
    }

    @Test
    void itsFirstFileRequestAnswers() throws Exception {
        String id = create("files", Map.of());
        sh(id, "echo kept > /tmp/file");
        awaitFrozen(id);
        try (var in = admin.download("/computers/" + id + "/files?path=" + URLEncoder.encode("/tmp/file",
                StandardCharsets.UTF_8))) {
            assertEquals("kept\n", new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        assertTrue(computer(id).path("frozen_since").isNull());
        admin.delete("/computers/" + id);
    }

    @Test
    void itsFirstRouterRequestAnswers() throws Exception {
        var created = TestComputers.create(admin, ws, "site", web, Map.of("ports",
                List.of(Map.of("target", 8080, "published", 80))));
        String id = created.path("id").asText();
        String url = created.path("url").asText() + "/";
        assertTrue(Eventually.eventually(Duration.ofSeconds(30), () -> curl(url).endsWith("\n200")), "listening");
        awaitFrozen(id);
        assertEquals("hello from the computer\n\n200", curl(url));
        assertTrue(computer(id).path("frozen_since").isNull());
        admin.delete("/computers/" + id);
    }

    @Test
    void aNewConnectionFromAnotherComputerReachesIt() {
        String greeter = create("greeter", Map.of("command", List.of("sh", "-c",
                "while true; do echo hello | nc -l -p 9000; done")));
        String caller = create("caller", Map.of());
        awaitFrozen(greeter);
        awaitFrozen(caller);
        assertEquals("hello", sh(caller, "nc -w 5 greeter.internal 9000 </dev/null").strip(),
                "the firewall hands it to the waker, which thaws the computer and passes it on");
        assertTrue(computer(greeter).path("frozen_since").isNull());
        List.of(greeter, caller).forEach(c -> admin.delete("/computers/" + c));
    }

    /** A packet on a connection held open since before the freeze: the host's veth counts it. */
    @Test
    void aPacketOnAConnectionItHoldsReachesIt() {
        String echo = create("echo", Map.of("command", List.of("sh", "-c",
                "mkfifo /tmp/p; while true; do nc -l -p 9000 < /tmp/p | tee -a /tmp/heard > /tmp/p; done")));
        String holder = holding("holder", "echo.internal 9000");
        awaitFrozen(echo);
        awaitFrozen(holder);
        sh(holder, "echo ping > /tmp/in");
        assertEquals("ping", Eventually.eventually(Duration.ofSeconds(10), () -> sh(holder, "cat /tmp/out"),
                "ping"::equals), "the frozen end thawed for the packet and answered on the same connection");
        assertEquals("ping", sh(echo, "cat /tmp/heard"));
        List.of(echo, holder).forEach(c -> admin.delete("/computers/" + c));
    }

    /**
     * A computer whose main process holds a connection open to {@code target} (retrying until it
     * connects), fed by writes to /tmp/in, what it reads in /tmp/out.
     */
    private String holding(String name, String target) {
        String id = create(name, Map.of("command", List.of("sh", "-c", "mkfifo /tmp/in; sleep 100000 > /tmp/in & "
                + "while true; do nc " + target + " < /tmp/in > /tmp/out; sleep 0.3; done")));
        String port = target.substring(target.indexOf(' ') + 1);
        assertTrue(Eventually.eventually(Duration.ofSeconds(30), () -> sh(id, "netstat -tn").contains(":" + port
                + " ")), "connected to " + target);
        return id;
    }

    private static String curl(String url) throws Exception {
        var p = new ProcessBuilder("curl", "-s", "-m", "30", "-w", "\n%{http_code}", url).redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    @Test
    void aDatabaseConnectionItHoldsAnswersAfterAFreeze() {
        admin.create("/workspaces/" + ws + "/databases", Map.of("name", "frozendb"));
        String id = holding("client", "frozendb.db.internal 5432");
        awaitFrozen(id);
        sh(id, "printf '" + SSL_REQUEST + "' > /tmp/in");
        assertEquals("S", Eventually.eventually(Duration.ofSeconds(10), () -> sh(id, "head -c 1 /tmp/out"),
                "S"::equals), "PostgreSQL answers on the connection held through the freeze");
        admin.delete("/computers/" + id);
    }

    @Test
    void aCommandOfTheApiStillRunningOrTheOptOutKeepsItRunning() throws Exception {
        String busy = create("busy", Map.of());
        var started = admin.send("POST", "/computers/" + busy + "/processes", Map.of("command",
                List.of("sh", "-c", "while true; do date +%s >> /tmp/ticks; sleep 1; done")), Map.of());
        assertEquals(201, started.status(), () -> started.body().toString());
        String opted = create("timers", Map.of("freeze_when_idle", false, "command", List.of("sh", "-c",
                "while true; do date +%s >> /tmp/ticks; sleep 1; done")));
        assertFalse(computer(opted).path("freeze_when_idle").asBoolean());
        String ticks = "wc -l < /tmp/ticks";
        long busyBefore = Long.parseLong(sh(busy, ticks).strip());
        long optedBefore = Long.parseLong(sh(opted, ticks).strip());
        Thread.sleep(6000);
        assertTrue(computer(busy).path("frozen_since").isNull(), "a background command of the API runs on");
        assertTrue(computer(opted).path("frozen_since").isNull(), "freeze_when_idle false");
        assertTrue(Long.parseLong(sh(busy, ticks).strip()) > busyBefore + 3);
        assertTrue(Long.parseLong(sh(opted, ticks).strip()) > optedBefore + 3, "its timer kept running");

        var patched = admin.send("PATCH", "/computers/" + opted, Map.of("freeze_when_idle", true), Map.of());
        assertEquals(200, patched.status(), () -> patched.body().toString());
        awaitFrozen(opted);
        assertEquals(200, admin.send("PATCH", "/computers/" + opted, Map.of("freeze_when_idle", false), Map.of())
                .status());
        assertTrue(computer(opted).path("frozen_since").isNull(), "turning it off thaws it at once");
        List.of(busy, opted).forEach(c -> admin.delete("/computers/" + c));
    }
}
