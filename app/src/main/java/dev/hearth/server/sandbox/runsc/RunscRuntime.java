package dev.hearth.server.sandbox.runsc;

import dev.hearth.server.disks.Disks;
import dev.hearth.server.process.Commands;
import dev.hearth.server.process.Signals;
import dev.hearth.server.sandbox.SandboxRuntime;
import dev.hearth.server.sandbox.SandboxLimits;
import dev.hearth.server.sandbox.SandboxSpec;
import dev.hearth.server.sandbox.SandboxStatus;
import dev.hearth.server.sandbox.SandboxUsage;
import dev.hearth.server.sandbox.Slot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computers as gVisor sandboxes driven through the runsc command line: one network namespace and
 * veth pair per computer, a generated OCI bundle over a shared read-only image rootfs, the
 * writable layer in a per-computer overlay directory, /data bind-mounted from the host.
 */
public final class RunscRuntime implements SandboxRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(RunscRuntime.class);
    private final Runsc cli;
    private final Networks networks;
    private final Disks disks = new Disks();
    private final boolean disksShare;
    private final Boot boot;
    private final Cgroups cgroups;
    private final Freezer freezer;

    /** {@code runsc}: the binary; {@code root}: runsc's state directory (network markers go beside it). */
    public RunscRuntime(String runsc, Path root) {
        this(runsc, root, false);
    }

    /** {@code disksShare}: whether the disks' images are on a {@link dev.hearth.server.disks.Volume} that shares blocks. */
    public RunscRuntime(String runsc, Path root, boolean disksShare) {
        this(runsc, root, disksShare, Optional.empty());
    }

    /** {@code platform}: gVisor's platform for the sandboxes ({@code runsc --platform}; runsc's default if empty). */
    public RunscRuntime(String runsc, Path root, boolean disksShare, Optional<String> platform) {
        this.disksShare = disksShare;
        this.cli = new Runsc(runsc, root, platform);
        this.networks = new Networks(root.resolveSibling("networks"));
        this.cgroups = new Cgroups(root);
        this.freezer = new Freezer(cgroups);
        this.boot = new Boot(cli, networks, cgroups);
    }

    /** Where this instance's sandboxes' cgroups are, under each controller (hearth/INSTANCE). */
    public static String cgroupParent(Path root) {
        return Cgroups.parentOf(root);
    }

    /**
     * Thaws every frozen sandbox of the instance whose runsc root this is, for whoever removes them
     * without a server (runsc list and delete would wait on a frozen sentry); answers how many.
     */
    public static int thawAll(Path root) {
        var cgroups = new Cgroups(root);
        var freezer = new Freezer(cgroups);
        int thawed = 0;
        for (String sandboxId : cgroups.sandboxes()) {
            if (freezer.frozen(sandboxId)) {
                freezer.thaw(sandboxId);
                thawed++;
            }
        }
        return thawed;
    }

    @Override
    public int continueStopped(String sandboxId) {
        int continued = 0;
        for (long pid : cgroups.processes(sandboxId)) {
            if (stopped(pid) && Signals.send(pid, Signals.SIGCONT)) {
                continued++;
            }
        }
        return continued;
    }

    private static boolean stopped(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            // pid (comm) STATE ...: the command may hold spaces and parentheses, the state follows the last ')'
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("T");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** What {@link #removeAll} took away. */
    public record Removed(int sandboxes, int networks) {
    }

    /**
     * Removes everything the instance whose runsc root this is left on the host, for whoever takes
     * a data directory down without a server: its sandboxes (thawed first), and their network
     * namespaces and veths.
     */
    public static Removed removeAll(Path root) {
        thawAll(root);
        var runsc = new Runsc("runsc", root);
        int sandboxes = 0;
        for (String id : runsc.list().keySet()) {
            try {
                runsc.delete(id);
                sandboxes++;
            } catch (Commands.Failure e) {
                LOG.warn("cannot remove sandbox {}: {}", id, e.getMessage());
            }
        }
        var networks = new Networks(root.resolveSibling("networks"));
        var slots = networks.slots();
        slots.forEach(networks::remove);
        return new Removed(sandboxes, slots.size());
    }

    /** Removes the instance's cgroups once no process is left in them; answers how many sandboxes' went. */
    public static int removeCgroups(Path root) {
        var cgroups = new Cgroups(root);
        int removed = cgroups.prune(Set.of());
        cgroups.removeParent();
        return removed;
    }

    /** The sandboxes under a runsc root, from runsc's state files: {@code runsc list} would wait on a frozen one. */
    public static Map<String, SandboxStatus> sandboxesUnder(Path root) {
        return new Runsc("runsc", root).list();
    }

    /** Is runsc usable here: installed, and are we root (namespaces, cgroups)? */
    public static Optional<String> unavailableReason(String runsc) {
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("computers need hearth serve to run as root (network namespaces, cgroups)");
        }
        try {
            Commands.check(List.of(runsc, "--version"), Runsc.QUICK);
            return Optional.empty();
        } catch (Commands.Failure e) {
            return Optional.of("runsc is not usable: " + e.getMessage() + " (./run-tests installs it)");
        }
    }

    @Override
    public boolean runsProcesses() {
        return true;
    }

    @Override
    public void prepareNetwork(Slot slot) {
        networks.prepare(slot);
    }

    @Override
    public void removeNetwork(Slot slot) {
        networks.remove(slot);
    }

    @Override
    public void prepareDisk(Path dir, Path image, long bytes) {
        disks.prepare(dir, image, bytes);
    }

    @Override
    public List<String> missing(Slot slot, Optional<Path> disk) {
        var missing = new ArrayList<String>();
        if (!networks.intact(slot)) {
            missing.add("its network (namespace " + slot.netns() + " or veth " + slot.hostVeth() + ")");
        }
        disk.filter(dir -> !Disks.mounted(dir)).ifPresent(dir -> missing.add("its disk (nothing mounted on " + dir + ")"));
        return missing;
    }

    @Override
    public boolean releaseDisk(Path dir) {
        return disks.unmount(dir);
    }

    @Override
    public void removeDisk(Path dir, Path image) {
        disks.remove(dir, image);
    }

    @Override
    public boolean disksShare() {
        return disksShare;
    }

    @Override
    public void snapshotDisk(Path dir, Path image, Path copy) {
        disks.snapshot(dir, image, copy);
    }

    @Override
    public void copyDisk(Path from, Path image) {
        disks.copy(from, image);
    }

    @Override
    public Optional<SandboxUsage> usage(String sandboxId) {
        return cgroups.usage(sandboxId);
    }

    @Override
    public boolean outOfMemory(String sandboxId) {
        return cgroups.oomKills(sandboxId) > 0;
    }

    @Override
    public Optional<SandboxLimits> limits(String sandboxId) {
        return cgroups.limits(sandboxId);
    }

    @Override
    public void start(SandboxSpec spec, Path stateDir) {
        boot.start(spec, stateDir);
    }

    @Override
    public void restore(SandboxSpec spec, Path stateDir, Path imageDir) {
        boot.restore(spec, stateDir, imageDir);
    }

    @Override
    public void checkpoint(String sandboxId, Path imageDir, boolean leaveRunning) {
        requireThawed(sandboxId);
        cli.checkpoint(sandboxId, imageDir, leaveRunning);
    }

    @Override
    public void freeze(String sandboxId) {
        freezer.freeze(sandboxId);
    }

    @Override
    public void thaw(String sandboxId) {
        freezer.thaw(sandboxId);
    }

    @Override
    public boolean frozen(String sandboxId) {
        return freezer.frozen(sandboxId);
    }

    @Override
    public void pause(String sandboxId) {
        requireThawed(sandboxId);
        cli.pause(sandboxId);
    }

    @Override
    public void signalInit(String sandboxId, String signal) {
        requireThawed(sandboxId);
        cli.signalInit(sandboxId, signal);
    }

    @Override
    public void resume(String sandboxId) {
        requireThawed(sandboxId);
        cli.resume(sandboxId);
    }

    // runsc would wait on a frozen sentry for as long as its time limit: a mistake answers at once.
    private void requireThawed(String sandboxId) {
        if (freezer.frozen(sandboxId)) {
            throw new IllegalStateException("sandbox " + sandboxId + " is frozen; thaw it first");
        }
    }

    @Override
    public Optional<SandboxStatus> state(String sandboxId) {
        return cli.state(sandboxId);
    }

    @Override
    public void delete(String sandboxId) {
        freezer.thaw(sandboxId);
        cli.delete(sandboxId);
    }

    @Override
    public Map<String, SandboxStatus> sandboxes() {
        return cli.list();
    }

    @Override
    public int pruneCgroups(Set<String> keep) {
        return cgroups.prune(keep);
    }

    @Override
    public Set<Slot> networks() {
        return networks.slots();
    }
}
