package dev.hearth.server.computers;

import static dev.hearth.server.tenancy.Action.COMPUTER_EXEC;
import static dev.hearth.server.tenancy.Action.COMPUTER_READ;
import static dev.hearth.server.tenancy.Action.COMPUTER_WRITE;

import dev.hearth.api.ApiException;
import dev.hearth.api.computers.ComputerMetrics;
import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.ComputerView;
import dev.hearth.api.computers.CreateComputer;
import dev.hearth.api.computers.ExecRequest;
import dev.hearth.api.computers.ExecResult;
import dev.hearth.api.computers.Sample;
import dev.hearth.api.computers.SleepComputer;
import dev.hearth.api.computers.UpdateComputer;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.ErrorEnvelope;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Peer;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.function.BooleanSupplier;

/** HTTP routes of computers: translation only, one named handler a route. */
public final class ComputersApi {
    private final ComputerService service;

    private ComputersApi(ComputerService service) {
        this.service = service;
    }

    public static void register(RouteTable routes, ComputerService service, ComputerStore store) {
        new ComputersApi(service).routes(routes, store::workspaceOf);
    }

    private void routes(RouteTable routes, Scope.Locator locator) {
        var read = Scope.resource("cmp", "computer", locator, COMPUTER_READ);
        var write = Scope.resource("cmp", "computer", locator, COMPUTER_WRITE);
        var exec = Scope.resource("cmp", "computer", locator, COMPUTER_EXEC);
        routes.create("/workspaces/{ws}/computers", Scope.workspace(COMPUTER_WRITE), this::create).recalls(this::recall)
                .summary("Create a computer: 201 when it runs, 202 with a computer.create operation while the image is pulled")
                .takes(CreateComputer.class).statuses(201, 202).example("""
                        {"name": "box", "image": "hearth/busybox", "env": {"GREETING": "hi", "TOKEN": {"secret": "api-token"}},
                         "ports": [{"target": 8080}], "resources": {"cpus": 1, "memory_mb": 512}}""").answers(Contract.one("computer", ComputerView.class));
        routes.add("GET", "/workspaces/{ws}/computers", Scope.workspace(COMPUTER_READ), this::list)
                .summary("The workspace's computers").paged()
                .query("label", "string", "NAME=VALUE (repeatable): only computers with every label given")
                .query("state", "string", "comma-separated states (e.g. ready,sleeping): only computers in one of them")
                .query("q", "string", "only computers whose name or image contains this text (any letter case)")
                .answers(Contract.page("computers", ComputerView.class));
        routes.add("GET", "/computers/{cmp}", read, this::get)
                .summary("A computer, by id or name").answers(Contract.one("computer", ComputerView.class));
        routes.add("GET", "/computers/{cmp}/metrics", read, this::metrics)
                .summary("CPU, memory and disk the computer uses now")
                .answers(Contract.one("metrics", ComputerMetrics.class));
        routes.add("GET", "/computers/{cmp}/metrics/history", read, this::metricsHistory)
                .summary("The last hour of CPU, memory and disk, a sample every 5 s while awake")
                .query("since", "string", "a timestamp: only samples from then on")
                .query("until", "string", "a timestamp: only samples until then")
                .answers(Contract.all("samples", Sample.class));
        routes.add("PATCH", "/computers/{cmp}", write, this::update)
                .summary("Change a computer's settings (env and resources merge)").takes(UpdateComputer.class)
                .answers(Contract.one("computer", ComputerView.class));
        routes.add("DELETE", "/computers/{cmp}", write, this::delete)
                .summary("Delete a computer, its overlay and /data").answers(Contract.one("computer", ComputerView.class));
        routes.add("POST", "/computers/{cmp}/sleep", write, this::sleep)
                .summary("Put the computer to sleep, its memory kept").mayTake(SleepComputer.class).statuses(200, 202)
                .answers(Contract.one("computer", ComputerView.class));
        routes.add("POST", "/computers/{cmp}/wake", write, this::wake)
                .summary("Wake a sleeping computer").answers(Contract.one("computer", ComputerView.class));
        // The same route as a WebSocket: an interactive terminal (hearth exec -it).
        routes.add("GET", "/computers/{cmp}/exec", exec, this::terminal)
                .summary("An interactive terminal over a WebSocket").statuses(101).answers(new Contract.Answer.Socket());
        routes.add("POST", "/computers/{cmp}/exec", exec, this::exec)
                .summary("Run a command; NDJSON output as it comes with Accept: application/x-ndjson")
                .takes(ExecRequest.class)
                .example("{\"command\": [\"sh\", \"-c\", \"echo $GREETING\"], \"timeout_seconds\": 30}")
                .answers(new Contract.Answer.JsonOrLines(Contract.of(ExecResult.class), OutputLines.SHAPE));
    }

    private Reply create(Exchange ex) {
        var created = service.create(ex.workspace(), ex.body(CreateComputer.class));
        return Reply.status(created.operation().isPresent() ? 202 : 201,
                Reply.one("computer", created.computer(), created.operationIds()));
    }

    private Reply recall(Exchange ex, String id) {
        return Reply.status(201, Reply.one("computer", service.get(ex.workspace(), id)));
    }

    private Reply list(Exchange ex) {
        return Reply.ok(Reply.page("computers", service.list(ex.workspace(), ex.page(), filter(ex))));
    }

    private Reply get(Exchange ex) {
        return Reply.ok(Reply.one("computer", service.get(ex.workspace(), ex.param("cmp"))));
    }

    private Reply metrics(Exchange ex) {
        return Reply.ok(Reply.one("metrics", service.metrics(ex.workspace(), ex.param("cmp"))));
    }

    private Reply metricsHistory(Exchange ex) {
        return Reply.ok(java.util.Map.of("samples", service.metricsHistory(ex.workspace(), ex.param("cmp"),
                ex.timeQuery("since"), ex.timeQuery("until"))));
    }

    private Reply update(Exchange ex) {
        return Reply.ok(Reply.one("computer", service.update(ex.workspace(), ex.param("cmp"),
                ex.body(UpdateComputer.class))));
    }

    private Reply delete(Exchange ex) {
        return Reply.ok(Reply.one("computer", service.delete(ex.workspace(), ex.param("cmp"))));
    }

    private Reply sleep(Exchange ex) {
        ex.bodyOr(SleepComputer.class, new SleepComputer(null));
        var slept = service.sleep(ex.workspace(), ex.param("cmp"));
        return Reply.status(slept.operation().isPresent() ? 202 : 200,
                Reply.one("computer", slept.computer(), slept.operationIds()));
    }

    private Reply wake(Exchange ex) {
        ex.noBody();
        return Reply.ok(Reply.one("computer", service.wake(ex.workspace(), ex.param("cmp"))));
    }

    private Reply terminal(Exchange ex) {
        service.requireHere(ex.workspace(), ex.param("cmp"));
        return Reply.upgrade((request, response, callback) ->
                new TerminalEndpoint(service, ex.workspace(), ex.param("cmp"), ex.requestId()));
    }

    private Reply exec(Exchange ex) {
        var exec = service.prepareExec(ex.workspace(), ex.param("cmp"), ex.body(ExecRequest.class));
        boolean ndjson = ex.header("accept").orElse("").contains("application/x-ndjson");
        // A client that hangs up gets its command killed (the peer says so even when nothing is written),
        // unless it sent an Idempotency-Key: then the command runs on and its retry gets the real answer.
        var peer = ex.peer();
        BooleanSupplier wanted = ex.header("idempotency-key").isPresent() ? () -> true : peer::connected;
        return ndjson ? Reply.stream("application/x-ndjson", out -> stream(exec, out, peer, ex.requestId()))
                : Reply.ok(exec.run(wanted));
    }

    private static ComputerFilter filter(Exchange ex) {
        var states = new java.util.TreeSet<ComputerState>();
        ex.queries("state").forEach(list -> {
            for (String word : list.split(",")) {
                states.add(java.util.Arrays.stream(ComputerState.values()).filter(s -> s.wire().equals(word.strip()))
                        .findFirst().orElseThrow(() -> ApiException.invalidField("state", "must be states among "
                                + java.util.Arrays.stream(ComputerState.values()).map(ComputerState::wire).toList())));
            }
        });
        var text = ex.query("q").map(String::strip).filter(q -> !q.isEmpty());
        if (text.isPresent() && text.get().length() > 200) {
            throw ApiException.invalidField("q", "must be at most 200 characters");
        }
        return new ComputerFilter(Labels.filter(ex.queries("label")), states, text);
    }

    /**
     * NDJSON: one object a line as output arrives ({@code {"stdout": "..."}}, {@code {"stderr": "..."}},
     * text or base64 as the request's encoding says), last {@code {"exit_code", "timed_out", "duration_ms"}},
     * or {@code {"error": {...}}} if the runtime fails.
     */
    private static void stream(Execs.PreparedExec exec, OutputStream out, Peer peer, String requestId)
            throws IOException {
        var lines = new OutputLines(out, exec.encoding());
        try {
            var result = exec.stream(lines::output, peer::connected);
            var end = new LinkedHashMap<String, Object>();
            end.put("exit_code", result.exitCode());
            end.put("timed_out", result.timedOut());
            end.put("duration_ms", result.durationMillis());
            lines.end(end);
        } catch (ApiException e) {
            lines.line(ErrorEnvelope.of(e, requestId));
        }
    }
}
