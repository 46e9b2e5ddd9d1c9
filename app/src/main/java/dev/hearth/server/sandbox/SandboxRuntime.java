package dev.hearth.server.sandbox;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The narrow interface to whatever runs computers: gVisor's runsc on this host today, an
 * orchestrator's driver tomorrow. Sandbox ids are fixed-length and new for every generation.
 */
public interface SandboxRuntime {
    /**
     * Continues the sandbox's host processes that something stopped (SIGSTOP: state T), which
     * leaves its computer deaf; answers how many. Hearth's own freezing (cgroup freezer) is not this.
     */
    default int continueStopped(String sandboxId) {
        return 0;
    }

    /** Sets up the slot's network namespace and veth pair, if not there already. */
    void prepareNetwork(Slot slot);

    /** Removes the slot's namespace and veth pair. */
    void removeNetwork(Slot slot);

    /**
     * What a running sandbox on {@code slot} needs and no longer has (its network namespace, its veth
     * pair, its disk mounted on {@code disk} when it has one), in words; empty when it is whole.
     */
    default List<String> missing(Slot slot, Optional<Path> disk) {
        return List.of();
    }

    /**
     * Makes {@code dir} a file system of its own of {@code bytes} (kept in {@code image}, made if missing),
     * so that what a sandbox keeps there cannot outgrow it. One smaller than {@code bytes} is grown when
     * no sandbox holds it (before a start); otherwise it stays as it is.
     */
    void prepareDisk(Path dir, Path image, long bytes);

    /**
     * Unmounts the disk on {@code dir}, keeping its image whole and unchanged from then on (it is
     * about to be copied to another node); false while something still holds it.
     */
    default boolean releaseDisk(Path dir) {
        return true;
    }

    /** Lets go of the disk on {@code dir} and deletes its image. */
    void removeDisk(Path dir, Path image);

    /**
     * Whether copies of disks ({@link #snapshotDisk}, {@link #copyDisk}) share their blocks here, so
     * that they take milliseconds and no space whatever the disk holds; if not, callers copy files.
     */
    default boolean disksShare() {
        return false;
    }

    /** {@code copy} (new) becomes the disk on {@code dir}, kept in {@code image}, as it is at one instant. */
    default void snapshotDisk(Path dir, Path image, Path copy) {
        throw new UnsupportedOperationException("disks here do not share blocks");
    }

    /** {@code image} (new) becomes a copy of the disk image {@code from}; {@link #prepareDisk} mounts it. */
    default void copyDisk(Path from, Path image) {
        throw new UnsupportedOperationException("disks here do not share blocks");
    }

    /**
     * Whether a sandbox's PID 1 really runs (Hearth's agent, answering on the slot's address): false
     * for a runtime that only pretends to run sandboxes.
     */
    boolean runsProcesses();

    /** CPU and memory of a running sandbox, from its cgroup; empty when it is not running or has none. */
    default Optional<SandboxUsage> usage(String sandboxId) {
        return Optional.empty();
    }

    /**
     * Whether the host's OOM killer ended a process of the sandbox (its memory limit is what the
     * computer was given plus room for gVisor's own kernel), as long as its cgroup is there to say.
     */
    default boolean outOfMemory(String sandboxId) {
        return false;
    }

    /** The limits a running sandbox has (a change of settings applies from its next start); empty if unknown. */
    default Optional<SandboxLimits> limits(String sandboxId) {
        return Optional.empty();
    }

    /** Starts a sandbox detached; returns when its main process runs. */
    void start(SandboxSpec spec, Path stateDir);

    /** Starts a sandbox from a checkpoint image (memory and root overlay) instead of its main process. */
    void restore(SandboxSpec spec, Path stateDir, Path imageDir);

    /**
     * Saves the sandbox's memory and root overlay to {@code imageDir}. Without {@code leaveRunning}
     * the sandbox stops (sleep); with it, it runs on after a pause. End or wait out execs first.
     */
    void checkpoint(String sandboxId, Path imageDir, boolean leaveRunning);

    /**
     * Stops every process of a running sandbox where it stands, memory kept (a warm sleep): it uses no
     * CPU until {@link #thaw}. Nothing else may be asked of a frozen sandbox but thaw, delete, state
     * and usage; the others fail rather than wait.
     */
    void freeze(String sandboxId);

    /** Lets a frozen sandbox run on; nothing if it is not frozen. */
    void thaw(String sandboxId);

    boolean frozen(String sandboxId);

    /** Freezes every process of the sandbox; a checkpoint of a paused sandbox leaves it paused. */
    void pause(String sandboxId);

    void resume(String sandboxId);

    /** Sends a signal ("TERM", "PWR", ...) to the sandbox's PID 1. */
    void signalInit(String sandboxId, String signal);

    /** Whether the sandbox exists, and its status. */
    Optional<SandboxStatus> state(String sandboxId);

    /** Stops and forgets a sandbox (thawed first if frozen); nothing if it does not exist. */
    void delete(String sandboxId);

    /** Every sandbox this runtime knows of, with its status. */
    Map<String, SandboxStatus> sandboxes();

    /** Removes cgroups left by sandboxes not in {@code keep}; answers how many went. */
    int pruneCgroups(Set<String> keep);

    /** Every slot with a network namespace or host veth on this host. */
    Set<Slot> networks();
}
