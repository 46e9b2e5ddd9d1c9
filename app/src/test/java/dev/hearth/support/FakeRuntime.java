package dev.hearth.support;

import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.SandboxLimits;
import dev.hearth.server.sandbox.SandboxRuntime;
import dev.hearth.server.sandbox.SandboxSpec;
import dev.hearth.server.sandbox.SandboxStatus;
import dev.hearth.server.sandbox.Slot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A runtime that runs nothing, for tests of the rules above the runtime interface: it keeps the
 * sandboxes and networks it was asked to make, writes checkpoint images as marker files, and fails
 * the next call of an action on request. It runs no agent: commands need the real runtime.
 */
public final class FakeRuntime implements SandboxRuntime {
    private final Map<String, SandboxStatus> sandboxes = new ConcurrentHashMap<>();
    private final Set<String> frozen = ConcurrentHashMap.newKeySet();
    private final Map<String, SandboxSpec> specs = new ConcurrentHashMap<>();
    private final Set<Slot> networks = ConcurrentHashMap.newKeySet();
    private final Set<String> failing = ConcurrentHashMap.newKeySet();
    /** Every call made, as "action sandboxId", in order. */
    public final List<String> calls = new CopyOnWriteArrayList<>();

    /** The next call of {@code action} ("start", "restore", "checkpoint", ...) fails as runsc would. */
    public void failNext(String action) {
        failing.add(action);
    }

    /** The sandbox's main process ended (its status becomes SandboxStatus.STOPPED), as when a program exits. */
    public void exit(String sandboxId) {
        sandboxes.replace(sandboxId, SandboxStatus.STOPPED);
    }

    /** The spec a sandbox was last started or restored with. */
    public SandboxSpec spec(String sandboxId) {
        return specs.get(sandboxId);
    }

    private void call(String action, String sandboxId) {
        calls.add(action + " " + sandboxId);
        if (failing.remove(action)) {
            throw new Commands.Failure("runsc " + action + " failed (injected by the test)");
        }
    }

    @Override
    public boolean runsProcesses() {
        return false;
    }

    @Override
    public void prepareNetwork(Slot slot) {
        call("prepareNetwork", slot.netns());
        networks.add(slot);
    }

    @Override
    public void prepareDisk(Path dir, Path image, long bytes) {
        call("prepareDisk", dir.getFileName().toString());
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void removeDisk(Path dir, Path image) {
        call("removeDisk", dir.getFileName().toString());
    }

    @Override
    public void removeNetwork(Slot slot) {
        call("removeNetwork", slot.netns());
        networks.remove(slot);
    }

    @Override
    public void start(SandboxSpec spec, Path stateDir) {
        call("start", spec.sandboxId());
        specs.put(spec.sandboxId(), spec);
        sandboxes.put(spec.sandboxId(), SandboxStatus.RUNNING);
    }

    @Override
    public void restore(SandboxSpec spec, Path stateDir, Path imageDir) {
        call("restore", spec.sandboxId());
        if (!Files.exists(imageDir.resolve("checkpoint.img"))) {
            throw new Commands.Failure("runsc restore failed: no checkpoint.img in " + imageDir);
        }
        specs.put(spec.sandboxId(), spec);
        sandboxes.put(spec.sandboxId(), SandboxStatus.RUNNING);
    }

    @Override
    public void checkpoint(String sandboxId, Path imageDir, boolean leaveRunning) {
        call("checkpoint", sandboxId);
        try {
            Files.createDirectories(imageDir);
            Files.writeString(imageDir.resolve("checkpoint.img"), sandboxId);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!leaveRunning) {
            sandboxes.replace(sandboxId, SandboxStatus.STOPPED);
        }
    }

    @Override
    public void signalInit(String sandboxId, String signal) {
        call("signal", sandboxId);
    }

    @Override
    public Optional<SandboxLimits> limits(String sandboxId) {
        return Optional.ofNullable(sandboxes.containsKey(sandboxId) ? specs.get(sandboxId) : null)
                .map(s -> new SandboxLimits(s.memoryBytes(), s.cpus(), s.pids()));
    }

    @Override
    public void freeze(String sandboxId) {
        call("freeze", sandboxId);
        frozen.add(sandboxId);
    }

    @Override
    public void thaw(String sandboxId) {
        call("thaw", sandboxId);
        frozen.remove(sandboxId);
    }

    @Override
    public boolean frozen(String sandboxId) {
        return frozen.contains(sandboxId);
    }

    @Override
    public void pause(String sandboxId) {
        call("pause", sandboxId);
        sandboxes.replace(sandboxId, SandboxStatus.PAUSED);
    }

    @Override
    public void resume(String sandboxId) {
        call("resume", sandboxId);
        sandboxes.replace(sandboxId, SandboxStatus.RUNNING);
    }

    @Override
    public Optional<SandboxStatus> state(String sandboxId) {
        return Optional.ofNullable(sandboxes.get(sandboxId));
    }

    @Override
    public void delete(String sandboxId) {
        call("delete", sandboxId);
        frozen.remove(sandboxId);
        sandboxes.remove(sandboxId);
    }

    @Override
    public Map<String, SandboxStatus> sandboxes() {
        return new TreeMap<>(sandboxes);
    }

    @Override
    public int pruneCgroups(Set<String> keep) {
        return 0;
    }

    @Override
    public Set<Slot> networks() {
        return new HashSet<>(networks);
    }
}
