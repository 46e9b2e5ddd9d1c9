package dev.hearth.server.access;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.tenancy.Role;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.http.Scope;
import dev.hearth.server.store.Ids;
import dev.hearth.server.tenancy.Action;
import dev.hearth.server.tenancy.Caller;
import dev.hearth.server.tenancy.Membership;
import dev.hearth.server.workspaces.WorkspaceStore;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
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

    public Membership authorize(Caller caller, String workspaceIdOrName, Action action) {
        return jdbi.withHandle(h -> {
            var notFound = ApiException.notFound("workspace " + workspaceIdOrName);
            var workspace = workspaces.findLive(h, workspaceIdOrName).orElseThrow(() -> notFound);
            return new Membership(workspace, requireRole(h, caller, workspace, action, notFound));
        });
    }

    /**
     * Authorizes an item route: finds the workspace holding the resource (by id, or by name within
     * {@code ?workspace=}) and checks the caller's role there. Not visible is not found.
     */
    public Membership authorize(Caller caller, Scope.OfResource scope, String ref, Optional<String> workspaceRef) {
        return jdbi.withHandle(h -> {
            var notFound = ApiException.notFound(scope.noun() + " " + ref);
            Optional<Workspace> within = Optional.empty();
            if (workspaceRef.isPresent()) {
                within = Optional.of(workspaces.findLive(h, workspaceRef.get())
                        .filter(w -> access.find(h, w.id(), caller.id()).isPresent())
                        .filter(w -> caller.boundTo().map(k -> k.workspace().equals(w.id())).orElse(true))
                        .orElseThrow(() -> ApiException.notFound("workspace " + workspaceRef.get())));
            } else if (!Ids.looksLikeId(ref)) {
                throw ApiException.invalidField("workspace", "give ?workspace= (id or name) to find a "
                        + scope.noun() + " by name");
            }
            String workspaceId = scope.locator().workspaceOf(h, ref, within.map(Workspace::id)).orElseThrow(() -> notFound);
            var workspace = workspaces.findLive(h, workspaceId).orElseThrow(() -> notFound);
            return new Membership(workspace, requireRole(h, caller, workspace, scope.action(), notFound));
        });
    }

    /**
     * The caller's role in the workspace, at least the action's. An API key sees its own workspace
     * only (any other is not found) and acts with its role or its principal's, the lower.
     */
    private Role requireRole(Handle h, Caller caller, Workspace workspace, Action action, ApiException notFound) {
        var grant = access.find(h, workspace.id(), caller.id()).orElseThrow(() -> notFound);
        var key = caller.boundTo();
        if (key.isPresent() && !key.get().workspace().equals(workspace.id())) {
            throw notFound;
        }
        Role role = key.filter(k -> !k.role().atLeast(grant.role())).map(Caller.ApiKeyCredential::role)
                .orElse(grant.role());
        if (!role.atLeast(action.minimum())) {
            throw new ApiException(ErrorCode.FORBIDDEN, "this needs the " + action.minimum().wire()
                    + " role in workspace " + workspace.name() + "; you are " + role.wire()
                    + (key.isPresent() ? " (with this API key)" : ""));
        }
        return role;
    }
}
