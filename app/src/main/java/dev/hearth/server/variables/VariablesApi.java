package dev.hearth.server.variables;

import static dev.hearth.server.tenancy.Action.VARIABLE_READ;
import static dev.hearth.server.tenancy.Action.VARIABLE_WRITE;

import dev.hearth.api.ApiException;
import dev.hearth.api.variables.CreateVariable;
import dev.hearth.api.variables.UpdateVariable;
import dev.hearth.api.variables.VariableView;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;

/** HTTP routes of variables: translation only, one named handler a route. */
public final class VariablesApi {
    private final VariableService service;

    private VariablesApi(VariableService service) {
        this.service = service;
    }

    public static void register(RouteTable routes, VariableService service, VariableStore store) {
        new VariablesApi(service).routes(routes, store::workspaceOf);
    }

    private void routes(RouteTable routes, Scope.Locator locator) {
        var read = Scope.resource("var", "variable", locator, VARIABLE_READ);
        var write = Scope.resource("var", "variable", locator, VARIABLE_WRITE);
        routes.create("/workspaces/{ws}/variables", Scope.workspace(VARIABLE_WRITE), this::create).recalls(this::recall)
                .summary("Create a variable (a secret computers reference by name)").takes(CreateVariable.class)
                .example("{\"name\": \"api-token\", \"value\": \"s3cr3t\"}")
                .answers(Contract.one("variable", VariableView.class));
        routes.add("GET", "/workspaces/{ws}/variables", Scope.workspace(VARIABLE_READ), this::list)
                .summary("The workspace's variables").paged()
                .query("deleted", "boolean", "include deleted variables")
                .answers(Contract.page("variables", VariableView.class));
        routes.add("GET", "/variables/{var}", read, this::get)
                .summary("A variable, by id or by name with ?workspace=")
                .query("workspace", "string", "the workspace, when {var} is a name").answers(Contract.one("variable", VariableView.class));
        routes.add("PATCH", "/variables/{var}", write, this::update)
                .summary("Change a variable's value or name").takes(UpdateVariable.class).answers(Contract.one("variable", VariableView.class));
        routes.add("DELETE", "/variables/{var}", write, this::delete)
                .summary("Delete a variable (soft: its name is free again)").answers(Contract.one("variable", VariableView.class));
    }

    private Reply create(Exchange ex) {
        return written(201, service.create(ex.caller(), ex.workspace(), ex.body(CreateVariable.class)));
    }

    private Reply recall(Exchange ex, String id) {
        return written(201, service.get(ex.workspace(), ex.role(), id));
    }

    private Reply list(Exchange ex) {
        return Reply.ok(Reply.page("variables", service.list(ex.workspace(), ex.role(),
                deleted(ex.query("deleted").orElse("false")), ex.page())));
    }

    private Reply get(Exchange ex) {
        return Reply.ok(Reply.one("variable", service.get(ex.workspace(), ex.role(), ex.param("var"))));
    }

    private Reply update(Exchange ex) {
        return written(200, service.update(ex.caller(), ex.workspace(), ex.param("var"), ex.body(UpdateVariable.class)));
    }

    private Reply delete(Exchange ex) {
        return written(200, service.delete(ex.caller(), ex.workspace(), ex.param("var")));
    }

    /** A write's answer; the copy kept for idempotent replays leaves the value out, so no plaintext is stored. */
    private static Reply written(int status, VariableView variable) {
        return Reply.withReplay(status, Reply.one("variable", variable), Reply.one("variable", variable.redacted()));
    }

    private static boolean deleted(String text) {
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ApiException.invalidField("deleted", "must be true or false");
        };
    }
}
