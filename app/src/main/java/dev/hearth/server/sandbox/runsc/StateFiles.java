package dev.hearth.server.sandbox.runsc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.JsonTrees;
import dev.hearth.server.sandbox.SandboxStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * runsc's own record of its sandboxes, read from the state files it keeps under its root
 * ({@code ID_sandbox:SANDBOX.state}: JSON with {@code status} and {@code sandbox.pid}) rather than
 * through {@code runsc state} or {@code runsc list}. Those start a process (~20 ms of CPU, every
 * second for the supervisor) and ask each sandbox over its control socket, which no frozen sandbox
 * answers. As runsc does, a sandbox whose process is gone is {@code stopped}. runsc rewrites a state
 * file in place, so a reader can catch it half written: that is {@link Unreadable}, and the caller
 * asks runsc instead.
 */
final class StateFiles {
    private static final String SUFFIX = ".state";
    private static final String SANDBOX = "_sandbox:";
    // runsc's own rule (container.Load): only these are checked against the sandbox's process.
    private static final Set<SandboxStatus> CHECKED = EnumSet.of(SandboxStatus.CREATED, SandboxStatus.RUNNING);

    /** A state file that is not (yet) a whole JSON document. */
    static final class Unreadable extends Exception {
        Unreadable(Path file, Throwable cause) {
            super("runsc state file " + file + " is not readable JSON", cause);
        }
    }

    private final Path root;

    StateFiles(Path root) {
        this.root = root;
    }

    /** The sandbox's status, as {@code runsc state} would say it; empty when runsc has no such sandbox. */
    Optional<SandboxStatus> state(String sandboxId) throws Unreadable {
        return read(root.resolve(sandboxId + SANDBOX + sandboxId + SUFFIX));
    }

    /** Every sandbox under the root with its status, as {@code runsc list} would say them. */
    Map<String, SandboxStatus> all() throws Unreadable {
        var states = new TreeMap<String, SandboxStatus>();
        try (var files = Files.newDirectoryStream(root, "*" + SANDBOX + "*" + SUFFIX)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                read(file).ifPresent(status -> states.put(name.substring(0, name.indexOf(SANDBOX)), status));
            }
        } catch (NoSuchFileException none) {
            return states;
        } catch (IOException e) {
            throw new Unreadable(root, e);
        }
        return states;
    }

    private Optional<SandboxStatus> read(Path file) throws Unreadable {
        JsonNode state;
        try {
            state = JsonTrees.read(Files.readAllBytes(file));
        } catch (NoSuchFileException gone) {
            return Optional.empty();
        } catch (IOException e) {
            throw new Unreadable(file, e);
        }
        SandboxStatus status;
        try {
            status = SandboxStatus.of(state.path("status").asText(""));
        } catch (IllegalArgumentException notAStatus) {
            throw new Unreadable(file, notAStatus);
        }
        return Optional.of(CHECKED.contains(status) && !alive(state.path("sandbox").path("pid").asLong()) ? SandboxStatus.STOPPED : status);
    }

    /** Whether {@code pid} is this root's sandbox process (not another that took its number since). */
    private boolean alive(long pid) {
        if (pid <= 0) {
            return false;
        }
        try {
            String argv = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8);
            return argv.startsWith("runsc-sandbox\0") && argv.contains("\0--root=" + root + "\0");
        } catch (IOException gone) {
            return false;
        }
    }
}
