package dev.hearth.server.workspaces;

import static dev.hearth.server.tenancy.Action.WORKSPACE_DELETE;
import static dev.hearth.server.tenancy.Action.WORKSPACE_READ;
import static dev.hearth.server.tenancy.Action.WORKSPACE_UPDATE;

import dev.hearth.api.ApiException;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.api.workspaces.CreateWorkspace;
import dev.hearth.api.workspaces.UpdateWorkspace;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import dev.hearth.server.tenancy.Membership;

/** HTTP routes of workspaces: translation only, one named handler a route. */
public final class WorkspacesApi {
    private final WorkspaceService service;

    private WorkspacesApi(WorkspaceService service) {
        this.service = service;
    }

    public static void register(RouteTable routes, WorkspaceService service) {
        new WorkspacesApi(service).routes(routes);
    }

    private void routes(RouteTable routes) {
        routes.create("/workspaces", Scope.signedIn(), this::create).recalls(this::recall)
                .summary("Create a workspace; the caller becomes its admin")
                .takes(CreateWorkspace.class).example("{\"name\": \"demo\"}").answers(Contract.one("workspace", Workspace.class));
        routes.add("GET", "/workspaces", Scope.signedIn(), this::list)
                .summary("The caller's workspaces").paged().answers(Contract.page("workspaces", Workspace.class));
        routes.add("GET", "/workspaces/{ws}", Scope.workspace(WORKSPACE_READ), this::get)
                .summary("A workspace").answers(Contract.one("workspace", Workspace.class));
        routes.add("PATCH", "/workspaces/{ws}", Scope.workspace(WORKSPACE_UPDATE), this::rename)
                .summary("Rename a workspace").takes(UpdateWorkspace.class)
                .answers(Contract.one("workspace", Workspace.class));
        routes.add("DELETE", "/workspaces/{ws}", Scope.workspace(WORKSPACE_DELETE), this::delete)
                .summary("Delete an empty workspace").answers(Contract.one("workspace", Workspace.class));
    }

    private Reply create(Exchange ex) {
        return Reply.status(201, Reply.one("workspace", service.create(ex.caller(), ex.body(CreateWorkspace.class))));
    }

    private Reply recall(Exchange ex, String id) {
        return Reply.status(201, Reply.one("workspace", service.memberships(ex.caller()).stream()
                .map(Membership::workspace).filter(w -> w.id().equals(id)).findFirst()
                .orElseThrow(() -> ApiException.notFound("workspace " + id))));
    }

    private Reply list(Exchange ex) {
        return Reply.ok(Reply.page("workspaces", service.list(ex.caller(), ex.page())));
    }

    private Reply get(Exchange ex) {
        return Reply.ok(Reply.one("workspace", ex.workspace()));
    }

    private Reply rename(Exchange ex) {
        return Reply.ok(Reply.one("workspace", service.rename(ex.workspace(), ex.body(UpdateWorkspace.class))));
    }

    private Reply delete(Exchange ex) {
        return Reply.ok(Reply.one("workspace", service.delete(ex.workspace())));
    }
}
