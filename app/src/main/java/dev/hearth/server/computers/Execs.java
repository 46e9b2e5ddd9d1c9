package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.Validate;
import dev.hearth.server.computers.ComputerState.Move;
import dev.hearth.server.sandbox.Exec;
import dev.hearth.server.sandbox.Terminal;
import dev.hearth.server.store.Ids;
import dev.hearth.server.tenancy.Workspace;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Commands run in computers: checked and resolved before any output (input, state, missing
 * variables, the environment), then run on the running sandbox with its gate held shared, a
 * sleeping computer woken first.
 */
final class Execs {
    public static final int OUTPUT_CAP = 1 << 20;

    private final ComputerRecords records;
    private final SandboxAccess access;
    private final Gates gates;
    private final Activity activity;
    private final Dirs dirs;
    private final Environments environments;
    private final ComputerImages images;
    private final Lifecycle lifecycle;

    Execs(ComputerRecords records, SandboxAccess access, Gates gates, Activity activity, Dirs dirs,
          Environments environments, ComputerImages images, Lifecycle lifecycle) {
        this.records = records;
        this.access = access;
        this.gates = gates;
        this.activity = activity;
        this.dirs = dirs;
        this.environments = environments;
        this.images = images;
        this.lifecycle = lifecycle;
    }

    /** An exec checked and ready to run: run it for a JSON answer, or stream its output. */
    public final class PreparedExec {
        private final Computer computer;
        private final long changesAtRead;
        private final Exec.Request request;

        private PreparedExec(Computer computer, long changesAtRead, Exec.Request request) {
            this.computer = computer;
            this.changesAtRead = changesAtRead;
            this.request = request;
        }

        public ExecApi.Result run(BooleanSupplier callerPresent) {
            var result = awake(computer, changesAtRead, sandbox -> SandboxAccess.answering(() ->
                    access.get().exec(sandbox, request, scratch(), OUTPUT_CAP, callerPresent)));
            return new ExecApi.Result(result.exitCode(), new String(result.stdout(), StandardCharsets.UTF_8),
                    new String(result.stderr(), StandardCharsets.UTF_8), result.timedOut(), result.truncated(),
                    result.durationMillis());
        }

        public Exec.Result stream(Exec.Sink sink, BooleanSupplier callerPresent) {
            return awake(computer, changesAtRead, sandbox -> SandboxAccess.answering(() ->
                    access.get().execStreaming(sandbox, request, scratch(), sink, callerPresent)));
        }

        public Terminal terminal(int columns, int rows) {
            var terminal = awake(computer, changesAtRead, sandbox -> SandboxAccess.answering(() ->
                    access.get().execTerminal(sandbox, request, scratch(), columns, rows)));
            used(computer.id());
            return terminal;
        }

        private Path scratch() {
            return dirs.computer(computer.id()).resolve("exec");
        }
    }

    /** Checks an exec (input, state, missing variables) and resolves its environment, before any output. */
    PreparedExec prepare(Workspace workspace, String ref, ExecApi.Request request) {
        access.get();
        // Counted before the read; by name, 1 (odd) makes the exec read again under the gate.
        long changesAtRead = Ids.looksLikeId(ref) ? gates.changes(ref) : 1;
        var computer = records.find(workspace, ref);
        if (computer.deleted()) {
            throw ApiException.conflict("computer " + computer.name() + " is deleted");
        }
        var command = Validate.required("command", request.command());
        if (command.isEmpty() || command.size() > 4096 || command.stream().anyMatch(a -> a == null)) {
            throw ApiException.invalidField("command", "an array of 1 to 4096 strings: argv[0] and its arguments");
        }
        var extra = ComputerInput.callEnv(request.env());
        String cwd = request.cwd();
        if (cwd != null && !cwd.startsWith("/")) {
            throw ApiException.invalidField("cwd", "must be an absolute path");
        }
        int timeout = Validate.range("timeout_seconds", request.timeoutSeconds(), 1, 3600, 60);
        if (!computer.allows(Move.EXEC)) {
            throw ApiException.conflict("computer " + computer.name() + " is " + computer.state() + ", not ready");
        }
        environments.requireVariables(computer);
        var image = SandboxAccess.answering(() -> images.unpacked(computer));
        String dir = cwd != null ? cwd : Boots.workingDir(image);
        byte[] stdin = request.stdin() == null ? new byte[0] : request.stdin().getBytes(StandardCharsets.UTF_8);
        return new PreparedExec(computer, changesAtRead, new Exec.Request(command,
                environments.of(computer, image, extra), dir, stdin, Duration.ofSeconds(timeout)));
    }

    /**
     * Runs {@code work} on the computer's running sandbox with the gate held shared, so no sleep or
     * delete starts under it; a sleeping computer is woken first. Marks the computer used.
     */
    private <T> T awake(Computer read, long changesAtRead, Function<String, T> work) {
        String computerId = read.id();
        for (int attempt = 0; ; attempt++) {
            var gate = gates.of(computerId);
            var shared = gate.lock().readLock();
            shared.lock();
            try {
                boolean unchanged = attempt == 0 && changesAtRead % 2 == 0 && gate.changes().get() == changesAtRead;
                var c = unchanged ? read : records.current(computerId);
                if (c.is(ComputerState.READY) && !c.deleted()) {
                    used(computerId);
                    try {
                        return work.apply(c.sandboxId());
                    } finally {
                        used(computerId);
                    }
                }
                if (!c.allows(Move.WAKE) || c.deleted() || attempt >= 3) {
                    throw ApiException.conflict("computer " + c.name() + " is " + (c.deleted() ? "deleted"
                            : c.state()) + ", not ready");
                }
            } finally {
                shared.unlock();
            }
            lifecycle.wakeNow(computerId);
        }
    }

    private void used(String computerId) {
        activity.used(computerId, records.now());
    }
}
