package dev.hearth.server.computers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.api.ApiException;
import dev.hearth.api.Json;
import dev.hearth.api.checkpoints.CheckpointState;
import dev.hearth.api.checkpoints.CreateCheckpoint;
import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.ComputerView;
import dev.hearth.api.computers.CreateComputer;
import dev.hearth.api.computers.ExecRequest;
import dev.hearth.api.computers.RestoreComputer;
import dev.hearth.api.computers.UpdateComputer;
import dev.hearth.server.sandbox.SandboxSpec;
import dev.hearth.server.sandbox.SandboxStatus;
import dev.hearth.server.sandbox.Slot;
import dev.hearth.support.ComputerRig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Computers' lifecycle rules on a real store over a fake runtime: what each move leaves behind. */
@Tag("unit")
class ComputerLifecycleTest {
    private ComputerRig rig;

    @BeforeEach
    void start() throws Exception {
        rig = new ComputerRig();
    }

    @AfterEach
    void stop() {
        rig.close();
    }

    private ComputerView create(String name, Map<String, Object> env) {
        var request = Json.mapper().convertValue(Map.of("name", name, "image", "hearth/busybox", "env", env),
                CreateComputer.class);
        return rig.service.create(rig.workspace, request).computer();
    }

    private Computer stored(String id) {
        return rig.store.jdbi().withHandle(h -> rig.computers.find(h, id)).orElseThrow();
    }

    private Path dataOf(String id) {
        return rig.dataDir.resolve("computers").resolve(id).resolve("data");
    }

    @Test
    void aComputerOfTheBuiltinImageStartsOnItsOwnNetworkWithItsEnvironment() {
        var c = create("web", Map.of("GREETING", "hi"));
        assertEquals(ComputerState.READY, c.state());
        var computer = stored(c.id());
        assertEquals(SandboxStatus.RUNNING, rig.runtime.state(computer.sandboxId()).orElseThrow());
        assertTrue(rig.runtime.networks().contains(computer.slot()));
        var spec = rig.runtime.spec(computer.sandboxId());
        assertEquals("hi", spec.env().get("GREETING"));
        assertEquals(512L << 20, spec.memoryBytes());
        // The agent is PID 1 and runs the image's command.
        assertEquals(List.of("/.hearth/hearth-agent", "init", "--restart", "on-failure", "--", "/bin/sh"),
                spec.args());
    }

    @Test
    void sleepSavesMemoryAndStopsTheSandboxAndWakeRunsANewOne() {
        var c = create("sleeper", Map.of());
        String first = stored(c.id()).sandboxId();
        var slept = rig.service.sleep(rig.workspace, c.id());
        assertEquals(ComputerState.SLEEPING, slept.computer().state());
        assertTrue(rig.runtime.state(first).isEmpty(), "the sandbox is gone while asleep");
        assertTrue(Files.exists(rig.dataDir.resolve("computers/" + c.id() + "/sleep/hearth-complete")));

        var woken = rig.service.wake(rig.workspace, c.id());
        assertEquals(ComputerState.READY, woken.state());
        String second = stored(c.id()).sandboxId();
        assertFalse(first.equals(second), "every wake runs a new sandbox id");
        assertEquals(SandboxStatus.RUNNING, rig.runtime.state(second).orElseThrow());
        assertFalse(Files.exists(rig.dataDir.resolve("computers/" + c.id() + "/sleep")), "the sleep image is spent");
    }

    @Test
    void aWakeThatFailsLeavesTheComputerAsleepWithTheReason() {
        var c = create("stuck", Map.of());
        rig.service.sleep(rig.workspace, c.id());
        rig.runtime.failNext("restore");
        var e = assertThrows(ApiException.class, () -> rig.service.wake(rig.workspace, c.id()));
        assertEquals("runtime_unavailable", e.code());
        var after = stored(c.id());
        assertEquals(ComputerState.SLEEPING, after.state());
        assertEquals("wake_failed", after.error().code());
    }

    @Test
    void aComputerThatFailedToStartRefusesSleepExecAndCheckpoints() {
        rig.runtime.failNext("start");
        var c = create("broken", Map.of());
        assertEquals(ComputerState.FAILED, c.state());
        assertEquals("start_failed", c.error().code());
        assertEquals("conflict", assertThrows(ApiException.class,
                () -> rig.service.sleep(rig.workspace, c.id())).code());
        assertEquals("conflict", assertThrows(ApiException.class, () -> rig.service.prepareExec(rig.workspace,
                c.id(), new ExecRequest(List.of("true"), null, null, null, null, null, null))).code());
        assertEquals("conflict", assertThrows(ApiException.class, () -> rig.service.checkpoints()
                .create(rig.workspace, c.id(), new CreateCheckpoint("k"))).code());
    }

    @Test
    void restoreInPlaceBringsBackDataAndCountsAGeneration() throws Exception {
        var c = create("roll", Map.of());
        Files.writeString(dataOf(c.id()).resolve("note"), "before");
        var checkpoint = checkpoint(c.id(), "before");
        Files.writeString(dataOf(c.id()).resolve("note"), "after");

        var restored = rig.service.restore(rig.workspace, c.id(), new RestoreComputer(checkpoint));
        assertEquals(ComputerState.READY, restored.state());
        assertEquals(2, restored.generation());
        assertNull(restored.pending());
        assertEquals("before", Files.readString(dataOf(c.id()).resolve("note")));
    }

    @Test
    void aForkTakesItsSourcesSettingsAndRecordsWhereItCameFrom() throws Exception {
        var source = create("origin", Map.of("A", "1"));
        Files.writeString(dataOf(source.id()).resolve("file"), "shared");
        String checkpoint = checkpoint(source.id(), "k1");
        var fork = rig.service.create(rig.workspace, new CreateComputer("copy", null, null, null, null, null, null, null,
                checkpoint, null, null, null, null, null, null, null)).computer();
        assertEquals(ComputerState.READY, fork.state());
        assertEquals(source.id(), fork.parent());
        assertEquals(checkpoint, fork.fromCheckpoint());
        assertEquals(List.of("A"), fork.envKeys());
        assertEquals("shared", Files.readString(dataOf(fork.id()).resolve("file")));
        assertTrue(rig.runtime.calls.contains("restore " + stored(fork.id()).sandboxId()), "a fork is a restore");
    }

    @Test
    void aProtectedComputerRefusesDeleteAndADeleteLeavesNoSandboxOrNetwork() {
        var c = create("keep", Map.of());
        rig.service.update(rig.workspace, c.id(), new UpdateComputer(null, null, true, null, null, null, null, null, null, null, null, null, null, null));
        assertEquals("protected", assertThrows(ApiException.class,
                () -> rig.service.delete(rig.workspace, c.id())).code());
        var computer = stored(c.id());
        rig.service.update(rig.workspace, c.id(), new UpdateComputer(null, null, false, null, null, null, null, null, null, null, null, null, null, null));
        var deleted = rig.service.delete(rig.workspace, c.id());
        assertTrue(deleted.deletedAt() != null);
        assertTrue(rig.runtime.sandboxes().isEmpty());
        assertFalse(rig.runtime.networks().contains(computer.slot()));
        assertFalse(Files.exists(rig.dataDir.resolve("computers").resolve(c.id())));
    }

    @Test
    void theSupervisorStartsAgainAComputerWhoseMainProcessExited() throws Exception {
        var c = create("phoenix", Map.of());
        rig.runtime.exit(stored(c.id()).sandboxId());
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (stored(c.id()).error() == null && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        var after = stored(c.id());
        assertEquals("restarted", after.error().code());
        assertEquals(SandboxStatus.RUNNING, rig.runtime.state(after.sandboxId()).orElseThrow());
    }

    @Test
    void reconcileRemovesSandboxesAndNetworksThatNoComputerOwns() {
        var c = create("owned", Map.of());
        rig.runtime.start(new SandboxSpec("stray-0001", "stray", rig.dataDir, List.of(),
                Map.of(), "/", rig.dataDir, rig.dataDir, List.of(), new Slot(9000), 64L << 20, 1, 64, List.of(), false), rig.dataDir);
        rig.runtime.prepareNetwork(new Slot(9000));
        rig.service.reconcile();
        assertEquals(List.of(stored(c.id()).sandboxId()), List.copyOf(rig.runtime.sandboxes().keySet()));
        assertFalse(rig.runtime.networks().contains(new Slot(9000)));
    }

    @Test
    void checkpointNamesAreDnsLabels() {
        var c = create("named", Map.of());
        for (String bad : List.of("Upper", "dotted.name", "a".repeat(64), "-edge")) {
            var e = assertThrows(ApiException.class, () -> rig.service.checkpoints().create(rig.workspace, c.id(),
                    new CreateCheckpoint(bad)));
            assertEquals("invalid_request", e.code(), bad);
        }
    }

    private String checkpoint(String computerId, String name) {
        var accepted = rig.service.checkpoints().create(rig.workspace, computerId, new CreateCheckpoint(name));
        var op = rig.operations.await(accepted.operation().id(), Duration.ofSeconds(30));
        assertEquals("succeeded", op.state().name().toLowerCase());
        var made = rig.service.checkpoints().get(rig.workspace, computerId, name);
        assertEquals(CheckpointState.READY, made.state());
        return made.id();
    }
}
