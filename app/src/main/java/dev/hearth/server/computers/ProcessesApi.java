package dev.hearth.server.computers;

import static dev.hearth.server.tenancy.Action.COMPUTER_EXEC;
import static dev.hearth.server.tenancy.Action.COMPUTER_READ;

import dev.hearth.api.ApiException;
import dev.hearth.api.computers.ProcessInfo;
import dev.hearth.api.computers.SignalProcess;
import dev.hearth.api.computers.StartProcess;
import dev.hearth.api.computers.Window;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.ErrorEnvelope;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;

/**
 * HTTP routes of processes in computers and of a computer's log: translation only. Viewers read
 * (the list, the output, the log); those who may exec start, signal and feed.
 */
public final class ProcessesApi {
    private final ComputerProcesses processes;

    private ProcessesApi(ComputerProcesses processes) {
        this.processes = processes;
    }

    public static void register(RouteTable routes, ComputerProcesses processes, ComputerStore store) {
        new ProcessesApi(processes).routes(routes, store::workspaceOf);
    }

    private void routes(RouteTable routes, Scope.Locator locator) {
        var read = Scope.resource("cmp", "computer", locator, COMPUTER_READ);
        var exec = Scope.resource("cmp", "computer", locator, COMPUTER_EXEC);
        String base = "/computers/{cmp}/processes";
        routes.add("POST", base, exec, this::start)
                .summary("Start a background process").takes(StartProcess.class)
                .example("{\"command\": [\"python3\", \"-m\", \"http.server\", \"8080\"], \"tag\": \"web\"}")
                .statuses(201).answers(Contract.one("process", ProcessInfo.class));
        routes.add("GET", base, read, this::list)
                .summary("The main process and background ones, oldest first")
                .answers(Contract.all("processes", ProcessInfo.class));
        routes.add("GET", base + "/{pid}", read, this::get)
                .summary("A process").answers(Contract.one("process", ProcessInfo.class));
        routes.add("POST", base + "/{pid}/signal", exec, this::signal)
                .summary("Send a signal").takes(SignalProcess.class).answers(Contract.one("process", ProcessInfo.class));
        routes.streaming("POST", base + "/{pid}/stdin", exec, this::stdin)
                .summary("Write to a process's stdin").query("close", "boolean", "close stdin after these bytes")
                .takesBytes("application/octet-stream").answers(Contract.one("process", ProcessInfo.class));
        routes.add("POST", base + "/{pid}/resize", exec, this::resize)
                .summary("Resize the terminal of a process started on one").takes(Window.class)
                .answers(Contract.one("process", ProcessInfo.class));
        routes.add("GET", base + "/{pid}/output", read, this::output)
                .summary("A process's output kept, then (with follow) as it comes").query("follow", "boolean",
                        "keep the answer open for new output until the process ends")
                .query("from", "string", "start (default): the output kept first; now: only what comes")
                .query("encoding", "string", "text (default) or base64").answers(new Contract.Answer.Lines(OutputLines.SHAPE));
        routes.add("GET", "/computers/{cmp}/logs", read, this::log)
                .summary("The main process's output").query("follow", "boolean",
                        "keep the answer open for new output until the process ends")
                .query("encoding", "string", "text (default) or base64").answers(new Contract.Answer.Lines(OutputLines.SHAPE));
    }

    private Reply start(Exchange ex) {
        return Reply.status(201, Reply.one("process", processes.start(ex.workspace(), ex.param("cmp"),
                ex.body(StartProcess.class))));
    }

    private Reply list(Exchange ex) {
        return Reply.ok(Map.of("processes", processes.list(ex.workspace(), ex.param("cmp"))));
    }

    private Reply get(Exchange ex) {
        return Reply.ok(Reply.one("process", processes.get(ex.workspace(), ex.param("cmp"), ex.param("pid"))));
    }

    private Reply signal(Exchange ex) {
        return Reply.ok(Reply.one("process", processes.signal(ex.workspace(), ex.param("cmp"), ex.param("pid"),
                ex.body(SignalProcess.class).signal())));
    }

    private Reply stdin(Exchange ex) {
        return Reply.ok(Reply.one("process", processes.stdin(ex.workspace(), ex.param("cmp"), ex.param("pid"),
                ex.bodyStream(), flag(ex, "close"))));
    }

    private Reply resize(Exchange ex) {
        return Reply.ok(Reply.one("process", processes.resize(ex.workspace(), ex.param("cmp"), ex.param("pid"),
                ex.body(Window.class))));
    }

    private Reply output(Exchange ex) {
        return ndjson(ex, () -> processes.output(ex.workspace(), ex.param("cmp"), ex.param("pid"), flag(ex, "follow"),
                fromNow(ex)));
    }

    private Reply log(Exchange ex) {
        return ndjson(ex, () -> processes.log(ex.workspace(), ex.param("cmp"), flag(ex, "follow")));
    }

    private static boolean fromNow(Exchange ex) {
        return ex.query("from").map(value -> switch (value) {
            case "start" -> false;
            case "now" -> true;
            default -> throw ApiException.invalidField("from", "start or now");
        }).orElse(false);
    }

    private static boolean flag(Exchange ex, String name) {
        return ex.query(name).map(value -> switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ApiException.invalidField(name, "true or false");
        }).orElse(false);
    }

    /** Checks the request first, then opens the output: a refusal is a plain error answer, not a line. */
    private static Reply ndjson(Exchange ex, Supplier<ComputerProcesses.Output> open) {
        var encoding = OutputEncoding.of(ex.query("encoding").orElse(null));
        flag(ex, "follow");
        var output = open.get();
        String requestId = ex.requestId();
        return Reply.stream("application/x-ndjson", out -> relay(output, new OutputLines(out, encoding), requestId));
    }

    /** The output as NDJSON lines, then {@code {"exit_code": N}} if the process ended. */
    private static void relay(ComputerProcesses.Output output, OutputLines lines, String requestId)
            throws IOException {
        try {
            var exit = output.relay(lines::output);
            lines.end(exit.map(code -> Map.of("exit_code", code)).orElse(null));
        } catch (ApiException e) {
            lines.line(ErrorEnvelope.of(e, requestId));
        }
    }

}
