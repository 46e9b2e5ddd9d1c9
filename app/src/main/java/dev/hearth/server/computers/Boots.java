package dev.hearth.server.computers;

import dev.hearth.server.agent.AgentClaim;
import dev.hearth.server.images.Image;
import dev.hearth.server.sandbox.SandboxRuntime;
import dev.hearth.server.sandbox.SandboxSpec;
import dev.hearth.server.sandbox.SandboxStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Starting a computer's sandbox: fresh from its image, or restored from a checkpoint image (a wake,
 * a fork, a restore), always on its own network slot with its limits, /data and Hearth's tools.
 */
final class Boots {
    private final ComputerRecords records;
    private final SandboxAccess access;
    private final Dirs dirs;
    private final Environments environments;
    private final ComputerImages images;
    private final Networking networking;
    private final Tools tools;
    private final FormerAddresses formerAddresses;
    private final Agents agents;
    private final ComputerDisks disks;

    Boots(ComputerRecords records, SandboxAccess access, Dirs dirs, Environments environments, ComputerImages images,
          Networking networking, Path toolsDir, Agents agents, ComputerDisks disks) {
        this.disks = disks;
        this.agents = agents;
        this.records = records;
        this.access = access;
        this.dirs = dirs;
        this.environments = environments;
        this.images = images;
        this.networking = networking;
        this.tools = new Tools(toolsDir);
        this.formerAddresses = new FormerAddresses(dirs);
    }

    /**
     * Starts the computer's current incarnation from its image and records it ready. {@code fresh}:
     * created just now, so no sandbox of it can exist and the runtime need not be asked.
     */
    Computer start(Computer computer, Image image, boolean fresh) {
        var runsc = access.get();
        var existing = fresh ? Optional.<SandboxStatus>empty() : runsc.state(computer.sandboxId());
        if (existing.isPresent() && runsc.frozen(computer.sandboxId())) {
            runsc.thaw(computer.sandboxId()); // a pooled sandbox whose claim was cut short: its agent must answer
        }
        if (existing.filter(SandboxStatus.RUNNING::equals).isPresent() && !agents.unclaimed(computer)) {
            // Never run an id twice: a second runsc run orphans the first sandbox. Adopt it instead.
            return records.save(computer.adopted(image.digest(), records.now()));
        }
        if (existing.isPresent()) {
            runsc.delete(computer.sandboxId());
        }
        try {
            Path dir = disks.disk(computer);
            Path data = Files.createDirectories(dir.resolve("data"));
            tools.ensure();
            runsc.prepareNetwork(computer.slot());
            networking.attach(computer);
            formerAddresses.forget(computer);
            runsc.start(spec(computer, image, data, List.of(), init(computer, image)), dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var runtime = access.get();
        if (runtime.runsProcesses()) {
            agents.started(computer, () -> running(runtime, computer));
        }
        return records.save(computer.started(image.digest(), records.now()));
    }

    /** After the computer's memory was saved in {@code imageDir} (a sleep, a checkpoint); {@code boot}: its agent's then. */
    void saved(Computer computer, Optional<String> boot, Path imageDir) {
        formerAddresses.record(computer, imageDir);
        AgentHolders.record(computer, boot, imageDir);
    }

    /** Starts the computer's current incarnation from a checkpoint image (memory and root overlay). */
    void restoreInto(Computer next, Path imageDir) throws IOException {
        var image = SandboxAccess.answering(() -> images.unpacked(next));
        disks.disk(next);
        tools.ensure();
        access.get().prepareNetwork(next.slot());
        networking.attach(next);
        var former = formerAddresses.carry(next, imageDir);
        access.get().restore(spec(next, image, dirs.data(next.id()), former, init(next, image)), dirs.computer(next.id()),
                imageDir);
        var runtime = access.get();
        if (runtime.runsProcesses()) {
            agents.restored(next, AgentHolders.of(imageDir), () -> running(runtime, next),
                    () -> runtime.signalInit(next.sandboxId(), "PWR"));
        }
    }

    private static boolean running(SandboxRuntime runtime, Computer computer) {
        return runtime.state(computer.sandboxId()).filter(SandboxStatus.RUNNING::equals).isPresent();
    }

    /**
     * Boots a sandbox for the warm pool as {@code draft} (the computer it will become: its id, slot
     * and resources): no rules, no main process; answers whether its agent answered. It is then
     * frozen, as a warm sleeper is, so that it uses no CPU until its claim thaws it.
     */
    boolean startPooled(Computer draft, Image image) {
        try {
            Path dir = disks.disk(draft);
            Path data = Files.createDirectories(dir.resolve("data"));
            tools.ensure();
            var runtime = access.get();
            runtime.prepareNetwork(draft.slot());
            networking.guard(draft);
            runtime.start(spec(draft, image, data, List.of(), Tools.pooled()), dir);
            if (runtime.runsProcesses() && !agents.pooled(draft, () -> running(runtime, draft))) {
                return false;
            }
            runtime.freeze(draft.sandboxId());
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Makes a pooled sandbox this computer's, as a start from its image would have made it: its rules,
     * its name in /etc/hosts and as hostname, then its main process with its environment.
     */
    Computer claim(Computer computer, Image image) throws IOException {
        access.get().thaw(computer.sandboxId());
        networking.attach(computer);
        networking.files(computer, dirs.computer(computer.id()));
        if (access.get().runsProcesses()) {
            var set = computer.settings();
            var env = environments.of(computer, image, Map.of()).entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue()).toList();
            agents.claim(computer, new AgentClaim(set.launch().argv(image.config()), env, set.launch().restart().wire(),
                    computer.name()));
        }
        return records.save(computer.started(image.digest(), records.now()));
    }

    private static List<String> init(Computer computer, Image image) {
        var launch = computer.settings().launch();
        return Tools.init(launch.restart(), launch.argv(image.config()));
    }

    private SandboxSpec spec(Computer computer, Image image, Path data, List<String> former, List<String> init)
            throws IOException {
        var set = computer.settings();
        long memory = (long) set.resources().memoryMb() << 20;
        return new SandboxSpec(computer.sandboxId(), computer.name(), image.rootfs(), init,
                withSecret(environments.of(computer, image, Map.of()), computer),
                workingDir(image), data, tools.dir(), networking.files(computer, dirs.computer(computer.id())),
                computer.slot(), memory,
                set.resources().cpus(), set.resources().pids(), former, init.contains(Tools.POOL_FLAG));
    }

    /** PID 1's environment: the computer's, and the agent's secret, which the agent passes on to nobody. */
    private Map<String, String> withSecret(Map<String, String> env, Computer computer) {
        var withSecret = new LinkedHashMap<>(env);
        withSecret.put(Agents.SECRET_ENV, agents.secret(computer.id()));
        return withSecret;
    }

    static String workingDir(Image image) {
        return image.config().workingDir().isEmpty() ? "/" : image.config().workingDir();
    }
}
