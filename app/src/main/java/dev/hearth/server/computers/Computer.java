package dev.hearth.server.computers;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.EnvValue;
import dev.hearth.api.computers.Pending;
import dev.hearth.api.computers.Resources;
import dev.hearth.api.computers.SleepMode;
import dev.hearth.api.operations.OperationError;
import dev.hearth.server.network.NetworkPolicy;
import dev.hearth.server.sandbox.Slot;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A computer as stored, in parts that change for different reasons: what its owner set, where it
 * is in its life, what runs it, where it came from, and when things happened.
 */
public record Computer(String id, String workspace, String name, Settings settings, Status status,
                       Instance instance, Lineage lineage, Times times) {
    /**
     * What its owner asked for; {@code auto_sleep_seconds} null means never. {@code labels}: its
     * owner's names for it, lists filter by them.
     */
    public record Settings(String image, Map<String, EnvValue> env, List<Port> ports, Resources resources,
                           boolean protectedFlag, Integer autoSleepSeconds, NetworkPolicy network, Launch launch,
                           Map<String, String> labels, Lifetime lifetime, boolean freezeWhenIdle) {
        /** The same, to live until deleted (its lifetime expired as a sleep, or it is being deleted). */
        public Settings endless() {
            return new Settings(image, env, ports, resources, protectedFlag, autoSleepSeconds, network, launch, labels,
                    Lifetime.NONE, freezeWhenIdle);
        }
    }

    /**
     * Its state, a change under way (null if none), why it last failed or restarted (null if fine),
     * how the main process of a sandbox of it last ended (null if none was seen to), and how it
     * sleeps (null unless sleeping).
     */
    public record Status(ComputerState state, Pending pending, OperationError error, MainExit mainExit, Sleep sleep) {
    }

    /** How deeply it sleeps, and since when it has slept (the warm period counts from then). */
    public record Sleep(SleepMode mode, Instant since) {
    }

    /** The main process of sandbox {@code incarnation} ended with {@code exitCode} (128 + N: signal N). */
    public record MainExit(int exitCode, Instant endedAt, int incarnation) {
    }

    /**
     * What runs it: the image digest, {@code generation} (restores from checkpoints, shown) and
     * {@code incarnation} (sandboxes: every start after sleep gets a new runsc id, not shown), and
     * where: its node and network slot (both given when its row is first stored).
     */
    public record Instance(String node, String imageDigest, int generation, int incarnation, Slot slot) {
        Instance running(String digest) {
            return new Instance(node, digest, generation, incarnation, slot);
        }

        Instance next(int newGeneration) {
            return new Instance(node, imageDigest, newGeneration, incarnation + 1, slot);
        }

        Instance at(String newNode, Slot newSlot) {
            return new Instance(newNode, imageDigest, generation, incarnation, newSlot);
        }
    }

    /** The computer and checkpoint a fork was made from; both null for one made from an image. */
    public record Lineage(String parent, String fromCheckpoint) {
    }

    public record Times(Instant createdAt, Instant updatedAt, Instant lastStartedAt, Instant lastActiveAt,
                        Instant deletedAt) {
        Times updated(Instant now) {
            return new Times(createdAt, now, lastStartedAt, lastActiveAt, deletedAt);
        }
    }

    /**
     * A published port: the target port inside the computer, the published one on the router; a
     * private port wants a token with a role in the workspace.
     */
    public record Port(int target, int published, String protocol, @JsonProperty("private") boolean privateAccess) {
    }

    /** A computer just asked for: creating, generation and incarnation 1, no slot yet. */
    static Computer draft(String id, String workspace, String name, Settings settings, String imageDigest,
                          Lineage lineage, Instant now) {
        return new Computer(id, workspace, name, settings, new Status(ComputerState.CREATING, null, null, null, null),
                new Instance(null, imageDigest, 1, 1, null), lineage, new Times(now, now, null, null, null));
    }

    public ComputerState state() {
        return status.state();
    }

    public Pending pending() {
        return status.pending();
    }

    public OperationError error() {
        return status.error();
    }

    /** How it sleeps; null unless sleeping. */
    public Sleep sleep() {
        return status.sleep();
    }

    /** Sleeping with its sandbox frozen in memory. */
    public boolean sleepsWarm() {
        return is(ComputerState.SLEEPING) && sleep() != null && sleep().mode() == SleepMode.WARM;
    }

    /** Where the computer is, in one word (see {@link Phase}). */
    public Phase phase() {
        return !deleted() && pending() != null ? Phase.MOVING : settled();
    }

    /** Its phase were no move under way: what the move under way may itself do next. */
    private Phase settled() {
        if (deleted()) {
            return Phase.DELETED;
        }
        return switch (state()) {
            case CREATING -> Phase.CREATING;
            case READY -> Phase.AWAKE;
            case SLEEPING -> sleepsWarm() ? Phase.ASLEEP_WARM : Phase.ASLEEP_COLD;
            case FAILED -> Phase.FAILED;
        };
    }

    public String image() {
        return settings.image();
    }

    public String imageDigest() {
        return instance.imageDigest();
    }

    public int generation() {
        return instance.generation();
    }

    public Slot slot() {
        return instance.slot();
    }

    public String fromCheckpoint() {
        return lineage.fromCheckpoint();
    }

    public Instant deletedAt() {
        return times.deletedAt();
    }

    public boolean deleted() {
        return times.deletedAt() != null;
    }

    public boolean is(ComputerState s) {
        return status.state() == s;
    }

    /** Whether the move may follow the one under way, if any (a deleted computer allows none). */
    public boolean allows(Move move) {
        return settled().allows(move);
    }

    /** Whether the move may start now: allowed, and no other move is under way. */
    public boolean allowsNow(Move move) {
        return phase().allows(move);
    }

    /** The runsc id of this incarnation: fixed length, since runsc matches ids by prefix. */
    /** How the main process of its current sandbox ended; empty while it runs (or none ran). */
    public Optional<MainExit> mainExit() {
        var exit = status.mainExit();
        return exit != null && exit.incarnation() == instance.incarnation() ? Optional.of(exit) : Optional.empty();
    }

    public String sandboxId() {
        return id + "-" + String.format("%04d", instance.incarnation());
    }

    /** In {@code state}; a sleeper that stays asleep keeps how it sleeps. */
    public Computer withStatus(ComputerState state, Pending pending, OperationError error, Instant now) {
        var sleep = state == ComputerState.SLEEPING ? status.sleep() : null;
        return new Computer(id, workspace, name, settings, new Status(state, pending, error, status.mainExit(), sleep),
                instance, lineage, times.updated(now));
    }

    /** Asleep, {@code mode} deep, since {@code since}; nothing pending, its error kept. */
    public Computer asleep(SleepMode mode, Instant since, Instant now) {
        return new Computer(id, workspace, name, settings, new Status(ComputerState.SLEEPING, null, error(),
                status.mainExit(), new Sleep(mode, since)), instance, lineage, times.updated(now));
    }

    /** Its sandbox runs the image {@code digest} from now on; error cleared. */
    public Computer started(String digest, Instant now) {
        return new Computer(id, workspace, name, settings,
                new Status(ComputerState.READY, pending(), null, status.mainExit(), null),
                instance.running(digest), lineage,
                new Times(times.createdAt(), now, now, times.lastActiveAt(), deletedAt()));
    }

    /** A sandbox of it was found running: ready, its error and start time kept. */
    public Computer adopted(String digest, Instant now) {
        return new Computer(id, workspace, name, settings,
                new Status(ComputerState.READY, pending(), error(), status.mainExit(), null),
                instance.running(digest), lineage, times.updated(now));
    }

    public Computer failed(OperationError why, Instant now) {
        return withStatus(ComputerState.FAILED, pending(), why, now);
    }

    /** The same state, with {@code why} said of it (a restart). */
    public Computer noted(OperationError why, Instant now) {
        return withStatus(state(), pending(), why, now);
    }

    /** The next sandbox of this computer (after sleep, or a restore), and the generation it belongs to. */
    public Computer nextIncarnation(int newGeneration, Instant now) {
        return new Computer(id, workspace, name, settings, status,
                instance.next(newGeneration), lineage, times.updated(now));
    }

    public Computer withSettings(String newName, Settings newSettings, Instant now) {
        return new Computer(id, workspace, newName, newSettings, status, instance, lineage, times.updated(now));
    }

    /** Where it runs: its node, and its network slot there. */
    public Computer placed(String node, Slot newSlot) {
        return new Computer(id, workspace, name, settings, status, instance.at(node, newSlot), lineage, times);
    }

    public String node() {
        return instance.node();
    }

    /** Deleted: nothing pending, no longer protected (its row is kept; its name and slot are free). */
    public Computer deleted(Instant now) {
        var unprotected = new Settings(image(), settings.env(), settings.ports(), settings.resources(), false,
                settings.autoSleepSeconds(), settings.network(), settings.launch(), settings.labels(), Lifetime.NONE,
                settings.freezeWhenIdle());
        return new Computer(id, workspace, name, unprotected, new Status(state(), null, error(), status.mainExit(), status.sleep()),
                instance, lineage,
                new Times(times.createdAt(), now, times.lastStartedAt(), times.lastActiveAt(), now));
    }
}
