package dev.hearth.server.sandbox.runsc;

import dev.hearth.server.process.Commands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Kills a command started in a sandbox together with every process it started. */
final class KillTree {
    // Stops, then kills, a process and every descendant: runsc kill --pid reaches one process only,
    // and a surviving child would keep the output pipes (and the caller) open.
    private static final String KILL_TREE = """
            t() { echo $1; for c in $(/.hearth/busybox ps -o pid,ppid | /.hearth/busybox awk -v p=$1 '$2==p{print $1}'); do t $c; done; }
            /.hearth/busybox kill -STOP $(t $1) 2>/dev/null; /.hearth/busybox kill -KILL $(t $1) 2>/dev/null; true""";

    private final Runsc runsc;

    KillTree(Runsc runsc) {
        this.runsc = runsc;
    }

    /** Runs the script in the sandbox on the tree under {@code pid} (a pid in the sandbox). */
    void tree(String sandboxId, String pid) {
        Commands.run(runsc.command("exec", sandboxId, "/.hearth/busybox", "sh", "-c", KILL_TREE, "kill-tree", pid),
                Runsc.QUICK);
    }

    /** An exec's tree, then the exec itself through runsc; nothing before it wrote its pid file. */
    void exec(String sandboxId, Path pidFile) throws IOException {
        if (Files.exists(pidFile)) {
            String pid = Files.readString(pidFile).strip();
            tree(sandboxId, pid);
            Commands.run(runsc.command("kill", "--pid", pid, sandboxId, "KILL"), Runsc.QUICK);
        }
    }
}
