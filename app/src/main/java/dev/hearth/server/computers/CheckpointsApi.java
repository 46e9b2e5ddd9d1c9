package dev.hearth.server.computers;

import static dev.hearth.server.tenancy.Action.COMPUTER_READ;
import static dev.hearth.server.tenancy.Action.COMPUTER_WRITE;

import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.computers.ComputerView;
import dev.hearth.api.computers.RestoreComputer;
import dev.hearth.server.checkpoints.CheckpointRoutes;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;

/**
 * HTTP routes of a computer's checkpoints (those of {@link CheckpointRoutes}), the workspace's kept
 * ones, and restoring the computer from one: translation only, one named handler a route.
 */
public final class CheckpointsApi {
    private final ComputerService service;
    private final ComputerCheckpoints checkpoints;

    private CheckpointsApi(ComputerService service) {
        this.service = service;
        this.checkpoints = service.checkpoints();
    }

    public static void register(RouteTable routes, ComputerService service, ComputerStore store) {
        new CheckpointsApi(service).routes(routes, store::workspaceOf);
    }

    private void routes(RouteTable routes, Scope.Locator locator) {
        var read = Scope.resource("cmp", "computer", locator, COMPUTER_READ);
        var write = Scope.resource("cmp", "computer", locator, COMPUTER_WRITE);
        CheckpointRoutes.register(routes, "computer", "cmp", read, write,
                "Checkpoint the running computer: memory, overlay and /data", checkpoints);
        // Kept checkpoints (templates): the workspace's, whether their computers live or not.
        routes.add("GET", "/workspaces/{ws}/checkpoints", Scope.workspace(COMPUTER_READ), this::listKept)
                .summary("The workspace's kept checkpoints (templates), newest first").paged()
                .answers(Contract.page("checkpoints", Checkpoint.class));
        routes.add("GET", "/workspaces/{ws}/checkpoints/{chk}", Scope.workspace(COMPUTER_READ), this::getKept)
                .summary("A kept checkpoint, by id").answers(Contract.one("checkpoint", Checkpoint.class));
        routes.add("DELETE", "/workspaces/{ws}/checkpoints/{chk}", Scope.workspace(COMPUTER_WRITE), this::deleteKept)
                .summary("Delete a kept checkpoint (a checkpoint.delete operation)").statuses(202)
                .answers(Contract.one("checkpoint", Checkpoint.class));
        routes.add("POST", "/computers/{cmp}/restore", write, this::restore)
                .summary("Roll the computer back to one of its checkpoints").takes(RestoreComputer.class)
                .example("{\"checkpoint\": \"v1\"}")
                .answers(Contract.one("computer", ComputerView.class));
    }

    private Reply listKept(Exchange ex) {
        return Reply.ok(Reply.page("checkpoints", checkpoints.kept(ex.workspace(), ex.page())));
    }

    private Reply getKept(Exchange ex) {
        return Reply.ok(Reply.one("checkpoint", checkpoints.keptIn(ex.workspace(), ex.param("chk"))));
    }

    private Reply deleteKept(Exchange ex) {
        return Reply.status(202, checkpoints.deleteKept(ex.workspace(), ex.param("chk")).body());
    }

    private Reply restore(Exchange ex) {
        return Reply.ok(Reply.one("computer", service.restore(ex.workspace(), ex.param("cmp"),
                ex.body(RestoreComputer.class))));
    }
}
