package dev.hearth.support;

import dev.hearth.api.Json;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.fs.Disk;
import dev.hearth.server.checkpoints.CheckpointKinds;
import dev.hearth.server.checkpoints.CheckpointStore;
import dev.hearth.server.computers.ComputerService;
import dev.hearth.server.computers.ComputerStore;
import dev.hearth.server.computers.RouterAddress;
import dev.hearth.server.computers.SleepSettings;
import dev.hearth.server.crypto.Keyring;
import dev.hearth.server.images.Image;
import dev.hearth.server.images.ImageStore;
import dev.hearth.server.images.Images;
import dev.hearth.server.metrics.Timings;
import dev.hearth.server.nodes.LocalNode;
import dev.hearth.server.nodes.NodeSettings;
import dev.hearth.server.nodes.NodeStore;
import dev.hearth.server.operations.OperationStore;
import dev.hearth.server.operations.Operations;
import dev.hearth.server.pool.PoolSettings;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Store;
import dev.hearth.server.variables.VariableService;
import dev.hearth.server.variables.VariableStore;
import dev.hearth.server.workspaces.WorkspaceStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Computers' rules on a real store (SQLite in a temporary directory) over a {@link FakeRuntime}:
 * everything {@code hearth serve} builds for computers but the sandboxes, so a rule is tested in
 * milliseconds. The built-in image is a directory written here, so nothing runs umoci either.
 */
public final class ComputerRig implements AutoCloseable {
    public final Path dataDir;
    public final FakeRuntime runtime = new FakeRuntime();
    public final MutableClock clock = new MutableClock();
    public final Store store;
    public final ComputerStore computers = new ComputerStore(NodeSettings.DEFAULT_NAME);
    public final VariableService variables;
    public final Operations operations;
    public final ComputerService service;
    public final Workspace workspace;

    /** Computers that sleep cold at once, as before sleep had depths. */
    public ComputerRig() throws IOException {
        this(new SleepSettings(Duration.ZERO, 0));
    }

    public ComputerRig(SleepSettings sleep) throws IOException {
        this(sleep, PoolSettings.NONE);
    }

    /** With a warm pool, filled once {@code service.reconcile()} ran (as hearth serve does at start). */
    public ComputerRig(SleepSettings sleep, PoolSettings pool) throws IOException {
        dataDir = Files.createTempDirectory("hearth-rig");
        store = Store.open(null, dataDir);
        var jdbi = store.jdbi();
        variables = new VariableService(jdbi, new VariableStore(), new Keyring(dataDir.resolve("keys.json")), clock);
        operations = new Operations(jdbi, new OperationStore(NodeSettings.DEFAULT_NAME), clock, Duration.ofSeconds(30), List.of());
        var images = new Images(builtinImage(dataDir.resolve("images")), List.of());
        var kinds = new CheckpointKinds(jdbi, new CheckpointStore(), operations);
        service = new ComputerService(new ComputerService.Inputs(jdbi, computers, variables, images, new ImageStore(),
                Optional.of(runtime), "", Optional.empty(), kinds, dataDir, clock, () -> new RouterAddress("http", "localhost:7301"),
                Timings.NONE, sleep, pool, new LocalNode(NodeSettings.DEFAULT_NAME, jdbi, new NodeStore(), clock)),
                operations);
        operations.start(true);
        Instant now = clock.instant();
        workspace = new Workspace(Ids.next(), "rig", Workspace.State.ACTIVE, now, now, null);
        jdbi.useTransaction(h -> new WorkspaceStore().insert(h, workspace));
    }

    /** An unpacked image under the built-in name, as Images would have made it with umoci. */
    private static Path builtinImage(Path dir) throws IOException {
        String digest = "sha256:" + "0".repeat(64);
        Path target = Files.createDirectories(dir.resolve(digest.replace(':', '-')).resolve("rootfs")).getParent();
        Files.writeString(target.resolve("config.json"), Json.mapper().writeValueAsString(
                new Image.Config(List.of(), List.of("/bin/sh"), List.of("PATH=/bin"), "/")));
        Files.writeString(dir.resolve("builtin-digest"), digest);
        return dir;
    }

    @Override
    public void close() {
        service.close();
        operations.close();
        store.close();
        Disk.deleteTree(dataDir);
    }
}
