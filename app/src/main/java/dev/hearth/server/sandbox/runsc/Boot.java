package dev.hearth.server.sandbox.runsc;

import dev.hearth.api.Json;
import dev.hearth.fs.Disk;
import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.SandboxSpec;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts sandboxes detached, with {@code runsc run} from a generated bundle or {@code runsc restore}
 * from a checkpoint image, working around gVisor #10704 on the runsc builds that have it.
 */
final class Boot {
    private final Cgroups cgroups;
    private static final Logger LOG = LoggerFactory.getLogger(Boot.class);
    // runsc before release-20240807 refuses --network=sandbox in any netns on kernels >= 6.11 (gVisor #10704).
    private static final String NETNS_BUG = "cannot run with network enabled in root network namespace";

    private final Runsc runsc;
    private final Networks networks;
    private volatile boolean maskProcSysNet;

    Boot(Runsc runsc, Networks networks, Cgroups cgroups) {
        this.cgroups = cgroups;
        this.runsc = runsc;
        this.networks = networks;
        this.maskProcSysNet = needsNetnsWorkaround(runsc.version());
    }

    /** Builds dated before 2024-08-07 have the bug; newer ones (and unknown ones) are tried as they are. */
    static boolean needsNetnsWorkaround(String version) {
        var m = Pattern.compile("(20\\d{6})").matcher(version);
        return m.find() && Integer.parseInt(m.group(1)) < 20240807;
    }

    void start(SandboxSpec spec, Path stateDir) {
        boot(spec, stateDir, "run", List.of());
    }

    void restore(SandboxSpec spec, Path stateDir, Path imageDir) {
        boot(spec, stateDir, "restore", List.of("--image-path", imageDir.toString()));
    }

    /** Where one boot's bundle, overlay and logs go, and how runsc is told to start. */
    private record Start(SandboxSpec spec, Path stateDir, Path bundle, Path overlay, String action,
                         List<String> actionFlags) {
    }

    /** {@code run} a sandbox from its bundle, or {@code restore} it from a checkpoint image. */
    private void boot(SandboxSpec spec, Path stateDir, String action, List<String> actionFlags) {
        try {
            Path bundle = Files.createDirectories(stateDir.resolve("bundle"));
            Path overlay = Files.createDirectories(stateDir.resolve("overlay"));
            // The main process's environment may hold secrets: the bundle is for root's eyes only.
            Disk.writePrivate(bundle.resolve("config.json"), Json.mapper().writeValueAsString(OciSpec.of(spec, cgroups.pathOf(spec.sandboxId()))));
            var start = new Start(spec, stateDir, bundle, overlay, action, actionFlags);
            networks.readdress(spec.network(), spec.formerAddresses());
            var result = run(start);
            if (!result.ok() && !maskProcSysNet && result.stderr().contains(NETNS_BUG)) {
                LOG.info("this runsc needs the /proc/sys/net mask for --network=sandbox (gVisor #10704); using it");
                maskProcSysNet = true;
                networks.readdress(spec.network(), spec.formerAddresses());
                result = run(start);
            }
            if (!result.ok()) {
                throw new Commands.Failure("runsc " + action + " failed: "
                        + lastLines(stateDir.resolve("runsc.log"), result.stderr()));
            }
            cgroups.makeRoomForSentry(spec.sandboxId(), spec.memoryBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Commands.Result run(Start start) {
        // A detached run keeps its caller's stdout open: give it none (Commands uses pipes, so use files).
        try {
            Path out = start.stateDir().resolve("runsc-run.out");
            var process = new ProcessBuilder(command(start))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile()).redirectErrorStream(true).start();
            if (!process.waitFor(Runsc.SLOW.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new Commands.Failure("runsc " + start.action() + " did not finish in " + Runsc.SLOW);
            }
            return new Commands.Result(process.exitValue(), "", Files.readString(out));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Commands.Failure("interrupted while starting a sandbox");
        }
    }

    private List<String> command(Start start) {
        var command = new ArrayList<String>();
        if (maskProcSysNet) {
            command.addAll(List.of("unshare", "-m", "sh", "-c",
                    "mount -t tmpfs -o size=4k hearth /proc/sys/net && exec \"$@\"", "runsc"));
        }
        command.addAll(runsc.command("--log", start.stateDir().resolve("runsc.log").toString(),
                "--network=sandbox", "--net-disconnect-ok", "--overlay2=root:dir=" + start.overlay(),
                start.action(), "--detach", "--bundle", start.bundle().toString()));
        command.addAll(start.actionFlags());
        command.add(start.spec().sandboxId());
        return command;
    }

    private static String lastLines(Path log, String fallback) {
        try {
            var lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size())) + "\n" + fallback.strip();
        } catch (IOException e) {
            return fallback.strip();
        }
    }
}
