package dev.hearth.server.sandbox.runsc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.SandboxStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How runsc is invoked: the binary with one {@code --root} for all of Hearth's sandboxes, and the
 * short lifecycle commands (checkpoint, pause, resume, state, list, delete) that need nothing else.
 */
final class Runsc {
    static final Duration QUICK = Duration.ofSeconds(30);
    // Checkpoints and restores move the sandbox's whole memory: seconds for gigabytes.
    static final Duration SLOW = Duration.ofMinutes(10);

    private final String binary;
    private final Path root;
    private final Optional<String> platform;
    private final StateFiles states;

    Runsc(String binary, Path root) {
        this(binary, root, Optional.empty());
    }

    /** {@code platform}: gVisor's platform for every sandbox this boots or restores (runsc's default if empty). */
    Runsc(String binary, Path root, Optional<String> platform) {
        this.binary = binary;
        this.root = root;
        this.platform = platform;
        this.states = new StateFiles(root);
    }

    /** What {@code runsc --version} prints (its build date decides workarounds). */
    String version() {
        return Commands.run(List.of(binary, "--version"), QUICK).stdout();
    }

    /** {@code runsc --root ROOT} followed by {@code args}, in a list open for more. */
    List<String> command(String... args) {
        var command = new ArrayList<>(List.of(binary, "--root", root.toString()));
        platform.ifPresent(p -> command.add("--platform=" + p));
        command.addAll(List.of(args));
        return command;
    }

    void checkpoint(String sandboxId, Path imageDir, boolean leaveRunning) {
        try {
            Files.createDirectories(imageDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var command = command("checkpoint", "--image-path", imageDir.toString(), "--compression=none");
        if (leaveRunning) {
            command.add("--leave-running");
        }
        command.add(sandboxId);
        Commands.check(command, SLOW);
    }

    void pause(String sandboxId) {
        Commands.check(command("pause", sandboxId), QUICK);
    }

    void signalInit(String sandboxId, String signal) {
        Commands.check(command("kill", sandboxId, signal), QUICK);
    }

    void resume(String sandboxId) {
        Commands.check(command("resume", sandboxId), QUICK);
    }

    /** The sandbox's status from runsc's state file; from {@code runsc state} while that is half written. */
    Optional<SandboxStatus> state(String sandboxId) {
        try {
            return states.state(sandboxId);
        } catch (StateFiles.Unreadable e) {
            return askState(sandboxId);
        }
    }

    private Optional<SandboxStatus> askState(String sandboxId) {
        var result = Commands.run(command("state", sandboxId), QUICK);
        if (!result.ok()) {
            return Optional.empty();
        }
        try {
            return Optional.of(SandboxStatus.of(Json.mapper().readTree(result.stdout()).path("status").asText()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    void delete(String sandboxId) {
        var result = Commands.run(command("delete", "--force", sandboxId), QUICK);
        if (!result.ok() && state(sandboxId).isPresent()) {
            throw new Commands.Failure("runsc delete " + sandboxId + " failed: " + result.stderr().strip());
        }
    }

    /** Every sandbox under the root, with its status (from the state files, as {@link #state}). */
    Map<String, SandboxStatus> list() {
        try {
            return states.all();
        } catch (StateFiles.Unreadable e) {
            return askList();
        }
    }

    private Map<String, SandboxStatus> askList() {
        var found = new TreeMap<String, SandboxStatus>();
        var result = Commands.run(command("list", "--format=json"), QUICK);
        try {
            JsonNode list = Json.mapper().readTree(result.stdout().isBlank() ? "[]" : result.stdout());
            list.forEach(c -> found.put(c.path("id").asText(), SandboxStatus.of(c.path("status").asText())));
        } catch (IOException e) {
            throw new Commands.Failure("runsc list answered no JSON: " + result.stdout());
        }
        return found;
    }
}
