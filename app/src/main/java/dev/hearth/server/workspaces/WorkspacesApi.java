package dev.hearth.server.workspaces;

import static dev.hearth.server.tenancy.Action.WORKSPACE_DELETE;
import static dev.hearth.server.tenancy.Action.WORKSPACE_READ;
import static dev.hearth.server.tenancy.Action.WORKSPACE_UPDATE;

import dev.hearth.server.http.Reply;
import dev.hearth.server.http.Router;
import dev.hearth.server.http.Scope;
import dev.hearth.server.workspaces.WorkspaceService.CreateWorkspace;
import dev.hearth.server.workspaces.WorkspaceService.UpdateWorkspace;

/** HTTP routes of workspaces: translation only. */
public final class WorkspacesApi {
    private WorkspacesApi() {
    }

    public static void register(Router router, WorkspaceService service) {
        router.create("/workspaces", Scope.signedIn(), ex -> Reply.status(201,
                Reply.one("workspace", service.create(ex.caller(), ex.body(CreateWorkspace.class)))));
        router.add("GET", "/workspaces", Scope.signedIn(),
                ex -> Reply.ok(Reply.page("workspaces", service.list(ex.caller(), ex.page()))));
        router.add("GET", "/workspaces/{ws}", Scope.workspace(WORKSPACE_READ),
                ex -> Reply.ok(Reply.one("workspace", ex.workspace())));
        router.add("PATCH", "/workspaces/{ws}", Scope.workspace(WORKSPACE_UPDATE), ex -> Reply.ok(
                Reply.one("workspace", service.rename(ex.workspace(), ex.body(UpdateWorkspace.class)))));
        router.add("DELETE", "/workspaces/{ws}", Scope.workspace(WORKSPACE_DELETE),
                ex -> Reply.ok(Reply.one("workspace", service.delete(ex.workspace()))));
    }
}
