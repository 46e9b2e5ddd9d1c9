package dev.hearth.server.access;

import dev.hearth.api.ErrorCode;
import dev.hearth.server.auth.Caller;
import dev.hearth.server.http.ApiException;
import dev.hearth.server.workspaces.Workspace;
import dev.hearth.server.workspaces.WorkspaceStore;
import org.jdbi.v3.core.Jdbi;

/**
 * Checks a caller's role in a workspace against the action's minimum. A workspace the caller has
 * no role in answers 404, exactly like one that does not exist.
 */
public final class Authorizer {
    private final Jdbi jdbi;
    private final WorkspaceStore workspaces;
    private final AccessStore access;

    public Authorizer(Jdbi jdbi, WorkspaceStore workspaces, AccessStore access) {
        this.jdbi = jdbi;
        this.workspaces = workspaces;
        this.access = access;
    }

    public Workspace authorize(Caller caller, String workspaceIdOrName, Action action) {
        return jdbi.withHandle(h -> {
            var notFound = ApiException.notFound("workspace " + workspaceIdOrName);
            var workspace = workspaces.findLive(h, workspaceIdOrName).orElseThrow(() -> notFound);
            var grant = access.find(h, workspace.id(), caller.id()).orElseThrow(() -> notFound);
            if (!grant.role().atLeast(action.minimum())) {
                throw new ApiException(ErrorCode.FORBIDDEN, "this needs the " + action.minimum().wire()
                        + " role in workspace " + workspace.name() + "; you are " + grant.role().wire());
            }
            return workspace;
        });
    }
}
