package dev.hearth.server.sandbox.runsc;

import dev.hearth.server.process.Commands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Freezes a sandbox through its cgroup's freezer, not {@code runsc pause}: runsc starts a process and
 * asks the sentry (18-27 ms), and a paused sentry still wakes its own goroutines, where a frozen cgroup
 * (the sandbox and its gofer) runs nothing at all; writing the state file takes a millisecond or two.
 * cgroup v1 ({@code freezer.state}) or v2 ({@code cgroup.freeze}). While frozen, runsc commands that
 * talk to the sandbox (state, delete, exec, checkpoint) block: thaw first.
 */
final class Freezer {
    // A cgroup freezes once every task in it stopped; one stuck in an uninterruptible sleep can delay that.
    private static final Duration LIMIT = Duration.ofSeconds(5);
    private static final Path ROOT = Cgroups.ROOT;

    private final Cgroups cgroups;

    Freezer(Cgroups cgroups) {
        this.cgroups = cgroups;
    }

    void freeze(String sandboxId) {
        set(sandboxId, true);
    }

    void thaw(String sandboxId) {
        if (frozen(sandboxId)) {
            set(sandboxId, false);
        }
    }

    /** Whether the sandbox's cgroup is frozen (or freezing); false when it has none. */
    boolean frozen(String sandboxId) {
        String group = group(sandboxId);
        try {
            Path v1 = ROOT.resolve("freezer").resolve(group).resolve("freezer.state");
            if (Files.exists(v1)) {
                return !Files.readString(v1).strip().equals("THAWED");
            }
            Path v2 = ROOT.resolve(group).resolve("cgroup.freeze");
            return Files.exists(v2) && Files.readString(v2).strip().equals("1");
        } catch (IOException e) {
            return false;
        }
    }

    private void set(String sandboxId, boolean frozen) {
        String group = group(sandboxId);
        Path v1 = ROOT.resolve("freezer").resolve(group).resolve("freezer.state");
        Path v2 = ROOT.resolve(group);
        try {
            boolean done;
            if (Files.exists(v1)) {
                Files.writeString(v1, frozen ? "FROZEN" : "THAWED");
                done = await(() -> Files.readString(v1).strip().equals(frozen ? "FROZEN" : "THAWED"));
            } else if (Files.exists(v2.resolve("cgroup.freeze"))) {
                Files.writeString(v2.resolve("cgroup.freeze"), frozen ? "1" : "0");
                String want = "frozen " + (frozen ? 1 : 0);
                done = await(() -> Files.readAllLines(v2.resolve("cgroup.events")).contains(want));
            } else {
                throw new Commands.Failure("sandbox " + sandboxId + " has no freezer cgroup");
            }
            if (!done && frozen) {
                set(sandboxId, false);
            }
            if (!done) {
                throw new Commands.Failure("sandbox " + sandboxId + " did not " + (frozen ? "freeze" : "thaw")
                        + " within " + LIMIT.toSeconds() + " s");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot " + (frozen ? "freeze" : "thaw") + " sandbox " + sandboxId, e);
        }
    }

    private interface Check {
        boolean done() throws IOException;
    }

    private static boolean await(Check check) throws IOException {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!check.done()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(Duration.ofNanos(200_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private String group(String sandboxId) {
        return cgroups.group(sandboxId);
    }
}
