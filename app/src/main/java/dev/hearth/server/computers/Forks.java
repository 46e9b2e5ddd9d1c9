package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.Validate;
import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.computers.CreateComputer;
import dev.hearth.api.computers.EnvValue;
import dev.hearth.api.computers.Resources;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.network.NetworkInput;
import dev.hearth.server.nodes.LocalNode;
import dev.hearth.server.store.Ids;
import java.util.Map;
import java.util.function.Function;

/**
 * Forks: new computers from a checkpoint, made on its computer's node while that node has room
 * (the checkpoint's files are there), else on the node placement picks, from a copy of the
 * checkpoint fetched from its node ({@link CheckpointCopies}).
 */
final class Forks {
    private final ComputerParts parts;
    private final LocalNode node;
    private final CheckpointCopies copies;

    Forks(ComputerParts parts, LocalNode node, CheckpointCopies copies) {
        this.parts = parts;
        this.node = node;
        this.copies = copies;
    }

    /**
     * A new computer from a checkpoint: the source computer's image, environment, ports and
     * resources unless the request sets them, its memory, overlay and /data from the checkpoint.
     */
    Computer fork(Workspace workspace, CreateComputer request, Function<String, Computer> boot) {
        String name = Validate.dnsLabel("name", request.name());
        var checkpoint = parts.checkpoints().readyIn(workspace, request.fromCheckpoint());
        var source = parts.records().current(checkpoint.source());
        var from = source.settings();
        if (request.image() != null && !request.image().equals(from.image())) {
            throw ApiException.invalidField("image", "a computer made from a checkpoint runs the checkpoint's image, "
                    + from.image() + "; leave image out");
        }
        var resources = ComputerInput.resources(request.resources(), from.resources());
        node.placeFork(source.node(), resources.memoryMb());
        if (parts.records().runsHere(source)) {
            return boot.apply(insert(workspace, name, request, checkpoint, source, resources));
        }
        return copies.using(checkpoint, source.node(), () -> boot.apply(insert(workspace, name, request, checkpoint,
                source, resources)));
    }

    /** The fork's row, its disk checked against the checkpoint's copy (which is here by now); answers its id. */
    private String insert(Workspace workspace, String name, CreateComputer request, Checkpoint checkpoint,
                          Computer source, Resources resources) {
        var from = source.settings();
        int copiedMb = parts.disks().diskMb(checkpoint.id());
        if (resources.diskMb() < copiedMb) {
            throw ApiException.invalidField("resources.disk_mb", "checkpoint " + checkpoint.name() + " holds a copy of"
                    + " a disk of " + copiedMb + " MB; a computer made from it needs at least that (a disk only grows)");
        }
        var ports = request.ports() == null ? from.ports() : ComputerInput.ports(request.ports());
        HostLabels.require("name", name, ports, workspace.name());
        var settings = new Computer.Settings(from.image(),
                request.env().apply(from.env(), Map.of(), m -> EnvValue.checked(m, false)), ports,
                resources, Boolean.TRUE.equals(request.protectedFlag()),
                ComputerInput.autoSleep(request.autoSleepSeconds(), from.autoSleepSeconds()),
                NetworkInput.parse(request.network(), from.network(), parts.networking().settings()),
                LaunchInput.parse(request.entrypoint(), request.command(), request.restart(), from.launch()),
                request.labels() == null ? from.labels() : Labels.of(request.labels()),
                Lifetime.parse(request.expiresAt(), request.onExpire(), Lifetime.NONE,
                        Boolean.TRUE.equals(request.protectedFlag()), parts.records().now()),
                request.freezeWhenIdle() == null ? from.freezeWhenIdle() : request.freezeWhenIdle());
        return parts.records().insert(Computer.draft(Ids.next(), workspace.id(), name, settings,
                checkpoint.imageDigest(), new Computer.Lineage(source.id(), checkpoint.id()), parts.records().now())).id();
    }

}
