package dev.hearth.server.computers;

import dev.hearth.api.computers.Restart;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * Hearth's tools, mounted read-only at /.hearth in every computer whatever its image: busybox (for
 * images without a shell) and hearth-agent, every computer's PID 1 (agent/ in the repository).
 */
final class Tools {
    static final String AGENT = "/.hearth/hearth-agent";
    static final String POOL_FLAG = "--pool";
    private static final String AGENT_RESOURCE = "/dev/hearth/agent/hearth-agent";

    private final Path dir;
    // The agent is written once per server process: a newer build replaces an older one's.
    private volatile boolean agentWritten;

    Tools(Path dir) {
        this.dir = dir;
    }

    Path dir() {
        return dir;
    }

    /** Puts the tools in place if they are not. */
    void ensure() throws IOException {
        Files.createDirectories(dir);
        if (!Files.exists(dir.resolve("busybox"))) {
            try (InputStream in = Files.newInputStream(Path.of("/bin/busybox"))) {
                place(in, "busybox");
            }
        }
        if (!agentWritten) {
            synchronized (this) {
                if (!agentWritten) {
                    writeAgent();
                    agentWritten = true;
                }
            }
        }
    }

    /**
     * PID 1 of a computer: the agent, which runs {@code command} (none: it waits for execs), reaps
     * orphans and, when the command ends, ends the sandbox or not as {@code restart} says.
     */
    static List<String> init(Restart restart, List<String> command) {
        var argv = new ArrayList<>(List.of(AGENT, "init", "--restart", restart.wire(), "--"));
        argv.addAll(command);
        return argv;
    }

    /** PID 1 of a sandbox of the warm pool: the agent, which starts the main process at the claim. */
    static List<String> pooled() {
        return List.of(AGENT, "init", POOL_FLAG);
    }

    private void writeAgent() throws IOException {
        try (InputStream in = Tools.class.getResourceAsStream(AGENT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("hearth-agent is not in this build (scripts/build-agent makes it)");
            }
            place(in, "hearth-agent");
        }
    }

    // Written beside and moved over: a sandbox starting meanwhile sees the old file or the new, whole.
    private void place(InputStream in, String name) throws IOException {
        Path tmp = dir.resolve(name + ".tmp");
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
