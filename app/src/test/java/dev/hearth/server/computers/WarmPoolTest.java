package dev.hearth.server.computers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.api.ApiException;
import dev.hearth.api.Patch;
import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.CreateComputer;
import dev.hearth.api.computers.EnvValue;
import dev.hearth.api.computers.ResourcesSpec;
import dev.hearth.cli.Cli;
import dev.hearth.server.pool.PoolSettings;
import dev.hearth.server.pool.PooledSandbox;
import dev.hearth.server.sandbox.SandboxStatus;
import dev.hearth.support.ComputerRig;
import dev.hearth.support.TestPool;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The warm pool's rules on a real store over a fake runtime: filled at start, claimed once, refilled, left cold when it does not fit. */
@Tag("unit")
class WarmPoolTest {
    private ComputerRig rig;

    @BeforeEach
    void start() throws Exception {
        rig = new ComputerRig(new SleepSettings(Duration.ZERO, 0), PoolSettings.parse("hearth/busybox=2"));
        rig.service.reconcile();
    }

    @AfterEach
    void stop() {
        rig.close();
    }

    private List<PooledSandbox> readyWhenFull() throws InterruptedException {
        return TestPool.awaitReady(rig.service::pool, "hearth/busybox", 2);
    }

    private Computer create(String name, ResourcesSpec resources) {
        var request = new CreateComputer(name, "hearth/busybox", Patch.set(Map.of("FOO", new EnvValue.Literal("bar"))),
                null, null, resources, null, null, null, null, null, null, null, null, null, null);
        var id = rig.service.create(rig.workspace, request).computer().id();
        return rig.store.jdbi().withHandle(h -> rig.computers.find(h, id)).orElseThrow();
    }

    private static Set<String> ids(List<PooledSandbox> pooled) {
        return pooled.stream().map(PooledSandbox::id).collect(Collectors.toSet());
    }

    @Test
    void theServerBootsThePoolAtStartAndACreateClaimsOneOfItsSandboxesWhichIsReplaced() throws Exception {
        var before = readyWhenFull();
        before.forEach(p -> assertEquals(SandboxStatus.RUNNING, rig.runtime.state(p.id() + "-0001").orElseThrow()));
        before.forEach(p -> assertTrue(rig.runtime.frozen(p.id() + "-0001"), "a pooled sandbox uses no CPU"));

        var claimed = create("web", null);
        assertTrue(ids(before).contains(claimed.id()), "the computer is the pooled sandbox, under its id");
        var slot = before.stream().filter(p -> p.id().equals(claimed.id())).findFirst().orElseThrow().slot();
        assertEquals(slot, claimed.slot(), "and on its network slot");
        assertEquals(ComputerState.READY, claimed.state());
        assertFalse(rig.runtime.frozen(claimed.sandboxId()), "thawed by its claim");
        assertEquals(claimed.sandboxId(), claimed.id() + "-0001");
        assertEquals(1, rig.runtime.calls.stream().filter(c -> c.startsWith("start " + claimed.sandboxId())).count(),
                "booted once, for the pool; the claim started nothing");

        var after = readyWhenFull();
        assertFalse(ids(after).contains(claimed.id()), "never in the pool twice");
        assertEquals(2, after.size());
    }

    @Test
    void aCreateWithOtherResourcesStartsColdAndLeavesThePoolAsItIs() throws Exception {
        var pooled = readyWhenFull();
        var cold = create("big", new ResourcesSpec(null, 1024, null, null));
        assertFalse(ids(pooled).contains(cold.id()));
        assertEquals(ids(pooled), ids(readyWhenFull()));
        assertTrue(pooled.stream().noneMatch(p -> p.slot().equals(cold.slot())),
                "a cold create never takes a pooled sandbox's slot");
    }

    @Test
    void aTakenNameAnswers409AndTheSandboxStaysInThePool() throws Exception {
        readyWhenFull();
        create("web", null);
        var pooled = ids(readyWhenFull());
        var e = assertThrows(ApiException.class, () -> create("web", null));
        assertEquals(409, e.status());
        assertEquals(pooled, ids(rig.service.pool().sandboxes()));
    }

    @Test
    void aRestartDiscardsWhatThePoolHeldAndBootsItAgain() throws Exception {
        var first = readyWhenFull();
        rig.service.close();
        assertTrue(rig.service.pool().sandboxes().isEmpty(), "a stopping server removes its pool");
        first.forEach(p -> assertTrue(rig.runtime.state(p.id() + "-0001").isEmpty()));

        rig.service.reconcile();
        var second = readyWhenFull();
        assertTrue(ids(second).stream().noneMatch(ids(first)::contains), "new sandboxes, never the old ones");
    }

    @Test
    void hearthAdminPoolListsThePooledSandboxesFromTheStore() throws Exception {
        var ready = readyWhenFull();
        var out = new ByteArrayOutputStream();
        int code = Cli.run(new String[] {"admin", "pool", "--data-dir", rig.dataDir.toString()}, new Cli.Context(Map.of(),
                System.in, new PrintStream(out, true), System.err, rig.dataDir.resolve("cli")));
        assertEquals(0, code);
        var lines = out.toString().strip().lines().toList();
        assertEquals(List.of("ID", "IMAGE", "STATE", "SLOT", "SINCE"), List.of(lines.get(0).split("\\s+")));
        assertEquals(3, lines.size(), out::toString);
        for (var p : ready) {
            assertTrue(lines.stream().anyMatch(l -> l.startsWith(p.id() + "  hearth/busybox  ready  " + p.slot().index())),
                    out::toString);
        }
    }

    @Test
    void settingsReadAsTheFlagIsWritten() {
        assertEquals(Map.of("hearth/busybox", 2, "docker://x/y:1", 1),
                PoolSettings.parse("hearth/busybox=2, docker://x/y:1=1").sizes());
        assertTrue(PoolSettings.parse("0").empty());
        assertTrue(PoolSettings.parse("hearth/busybox=0").empty());
        assertThrows(IllegalArgumentException.class, () -> PoolSettings.parse("hearth/busybox"));
        assertThrows(IllegalArgumentException.class, () -> PoolSettings.parse("hearth/busybox=x"));
        assertThrows(IllegalArgumentException.class, () -> PoolSettings.parse("hearth/busybox=1000"));
    }
}
