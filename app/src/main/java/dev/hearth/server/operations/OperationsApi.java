package dev.hearth.server.operations;

import static dev.hearth.server.tenancy.Action.OPERATION_READ;

import dev.hearth.api.ApiException;
import dev.hearth.api.WireName;
import dev.hearth.api.operations.OperationState;
import dev.hearth.api.operations.OperationView;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.time.Duration;
import java.util.Map;

/** HTTP routes of operations: a workspace's list, and one, optionally waiting up to 60 s for it to finish. */
public final class OperationsApi {
    private final Operations operations;

    private OperationsApi(Operations operations) {
        this.operations = operations;
    }

    public static void register(RouteTable routes, Operations operations, OperationStore store) {
        var api = new OperationsApi(operations);
        routes.add("GET", "/workspaces/{ws}/operations", Scope.workspace(OPERATION_READ), api::list)
                .summary("The workspace's operations, newest first").paged()
                .query("state", "string", "running, succeeded or failed: only operations in that state")
                .query("resource", "string", "an id: only operations on that resource")
                .answers(Contract.page("operations", OperationView.class));
        routes.add("GET", "/operations/{op}", Scope.resource("op", "operation", store::workspaceOf, OPERATION_READ),
                        api::get)
                .summary("An operation; ?wait=N answers as soon as it stops running")
                .query("wait", "integer", "seconds to wait for the operation to settle, 0 to 60")
                .answers(Contract.fields("operation", Contract.of(OperationView.class)));
    }

    private Reply list(Exchange ex) {
        var filter = new OperationStore.Filter(ex.query("state").map(OperationsApi::state).orElse(null),
                ex.query("resource").orElse(null));
        return Reply.ok(Reply.page("operations", operations.list(ex.workspace().id(), filter, ex.page())));
    }

    private Reply get(Exchange ex) {
        int wait = ex.query("wait").map(OperationsApi::seconds).orElse(0);
        return Reply.ok(Map.of("operation", operations.await(ex.param("op"), Duration.ofSeconds(wait)).view()));
    }

    private static OperationState state(String text) {
        try {
            return WireName.parse(OperationState.class, text);
        } catch (IllegalArgumentException unknown) {
            throw ApiException.invalidField("state", "one of running, succeeded, failed");
        }
    }

    private static int seconds(String text) {
        try {
            int s = Integer.parseInt(text);
            if (s >= 0 && s <= 60) {
                return s;
            }
        } catch (NumberFormatException notANumber) {
            // same answer as out of range
        }
        throw ApiException.invalidField("wait", "seconds from 0 to 60");
    }
}
