package dev.hearth.server.computers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.CreateComputer;
import dev.hearth.api.computers.ResourcesSpec;
import dev.hearth.api.computers.SleepMode;
import dev.hearth.api.computers.UpdateComputer;
import dev.hearth.server.sandbox.SandboxStatus;
import dev.hearth.support.ComputerRig;
import dev.hearth.support.Eventually;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Warm sleep's rules on a real store over a fake runtime: frozen, thawed, cold in time, and settled at start. */
@Tag("unit")
class WarmSleepLifecycleTest {
    private ComputerRig rig;

    @BeforeEach
    void start() throws Exception {
        rig = new ComputerRig(new SleepSettings(Duration.ofMinutes(5), 0));
    }

    @AfterEach
    void stop() {
        rig.close();
    }

    private String create(String name) {
        var request = new CreateComputer(name, "hearth/busybox", null, null, null, null,
                null, null, null, null, null, null, null, null, null, null);
        return rig.service.create(rig.workspace, request).computer().id();
    }

    private Computer stored(String id) {
        return rig.store.jdbi().withHandle(h -> rig.computers.find(h, id)).orElseThrow();
    }

    @Test
    void aSleepFreezesTheSandboxWhereItStandsAndAWakeThawsTheSameOne() {
        String id = create("warm");
        String sandbox = stored(id).sandboxId();
        var asleep = rig.service.sleep(rig.workspace, id).computer();
        assertEquals(ComputerState.SLEEPING, asleep.state());
        assertEquals(SleepMode.WARM, asleep.sleepMode());
        assertTrue(rig.runtime.frozen(sandbox));
        assertEquals(SandboxStatus.RUNNING, rig.runtime.state(sandbox).orElseThrow(), "kept, not checkpointed");
        assertFalse(Files.exists(rig.dataDir.resolve("computers/" + id + "/sleep")));

        var awake = rig.service.wake(rig.workspace, id);
        assertEquals(ComputerState.READY, awake.state());
        assertNull(awake.sleepMode());
        assertEquals(sandbox, stored(id).sandboxId(), "the same sandbox, no restore");
        assertFalse(rig.runtime.frozen(sandbox));
    }

    @Test
    void aComputerWhoseResourcesChangedSleepsColdSoThatItsWakeAppliesThem() {
        String id = create("resized");
        rig.service.update(rig.workspace, id, new UpdateComputer(null, null, null, null, null, null, null,
                new ResourcesSpec(null, 1024, null, null), null, null, null, null, null, null));
        assertEquals(SleepMode.COLD, rig.service.sleep(rig.workspace, id).computer().sleepMode());
        rig.service.wake(rig.workspace, id);
        assertEquals(1024L << 20, rig.runtime.spec(stored(id).sandboxId()).memoryBytes(), "the wake applied it");
        assertEquals(SleepMode.WARM, rig.service.sleep(rig.workspace, id).computer().sleepMode(), "and from then on warm");
    }

    @Test
    void aWarmSleeperGoesColdWhenItsWarmPeriodIsOver() throws Exception {
        String id = create("dozer");
        String sandbox = stored(id).sandboxId();
        rig.service.sleep(rig.workspace, id);
        var since = stored(id).sleep().since();
        rig.clock.advance(Duration.ofMinutes(6));
        Eventually.eventually(Duration.ofSeconds(5), () -> !stored(id).sleepsWarm());
        var cold = stored(id);
        assertEquals(SleepMode.COLD, cold.sleep().mode());
        assertEquals(since, cold.sleep().since(), "asleep since it fell asleep, not since it went cold");
        assertTrue(rig.runtime.state(sandbox).isEmpty(), "the sandbox is gone");
        assertTrue(Files.exists(rig.dataDir.resolve("computers/" + id + "/sleep/hearth-complete")));
        assertEquals(ComputerState.READY, rig.service.wake(rig.workspace, id).state());
        assertEquals(SandboxStatus.RUNNING, rig.runtime.state(stored(id).sandboxId()).orElseThrow());
    }

    @Test
    void atStartWarmSleepersStayFrozenAndNoOtherSandboxIsLeftFrozen() {
        String sleeper = create("sleeper");
        String awake = create("awake");
        rig.service.sleep(rig.workspace, sleeper);
        // A sleep cut short between the freeze and the record: the computer is ready, its sandbox frozen.
        rig.runtime.freeze(stored(awake).sandboxId());
        rig.runtime.thaw(stored(sleeper).sandboxId());
        rig.service.reconcile();
        assertTrue(stored(sleeper).sleepsWarm());
        assertTrue(rig.runtime.frozen(stored(sleeper).sandboxId()), "a warm sleeper is frozen again");
        assertEquals(ComputerState.READY, stored(awake).state());
        assertFalse(rig.runtime.frozen(stored(awake).sandboxId()), "never left frozen forever");
    }

    @Test
    void aWarmSleeperWhoseSandboxIsGoneStartsAfreshAndSaysSo() {
        String id = create("rebooted");
        rig.service.sleep(rig.workspace, id);
        rig.runtime.delete(stored(id).sandboxId());
        rig.service.reconcile();
        var c = stored(id);
        assertEquals(ComputerState.READY, c.state());
        assertEquals("memory_lost", c.error().code());
        assertEquals(SandboxStatus.RUNNING, rig.runtime.state(c.sandboxId()).orElseThrow());
    }
}
