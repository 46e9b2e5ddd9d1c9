package dev.hearth.server.operations;

import static dev.hearth.server.tenancy.Action.OPERATION_READ;

import dev.hearth.api.ApiException;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.time.Duration;
import java.util.Map;

/** HTTP route of operations: get one, optionally waiting up to 60 s for it to finish. */
public final class OperationsApi {
    private final Operations operations;

    private OperationsApi(Operations operations) {
        this.operations = operations;
    }

    public static void register(RouteTable routes, Operations operations, OperationStore store) {
        routes.add("GET", "/operations/{op}", Scope.resource("op", "operation", store::workspaceOf, OPERATION_READ),
                        new OperationsApi(operations)::get)
                .summary("An operation; ?wait=N answers as soon as it stops running")
                .query("wait", "integer", "seconds to wait for the operation to settle, 0 to 60")
                .answers(Contract.fields("operation", Contract.of(Operation.View.class)));
    }

    private Reply get(Exchange ex) {
        int wait = ex.query("wait").map(OperationsApi::seconds).orElse(0);
        return Reply.ok(Map.of("operation", operations.await(ex.param("op"), Duration.ofSeconds(wait)).view()));
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
