package dev.hearth.server.workspaces;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Validate;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.api.workspaces.CreateWorkspace;
import dev.hearth.api.workspaces.UpdateWorkspace;
import dev.hearth.server.store.Constraints;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.tenancy.Caller;
import dev.hearth.server.tenancy.Membership;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/** The rules of workspaces: any signed-in principal creates one and becomes its admin (see {@link Founding}). */
public final class WorkspaceService {
    private final Jdbi jdbi;
    private final WorkspaceStore workspaces;
    private final Founding founding;
    private final List<Contents> contents;
    private final Clock clock;

    public WorkspaceService(Jdbi jdbi, WorkspaceStore workspaces, Founding founding, List<Contents> contents,
                            Clock clock) {
        this.jdbi = jdbi;
        this.workspaces = workspaces;
        this.founding = founding;
        this.contents = contents;
        this.clock = clock;
    }

    public Workspace create(Caller caller, CreateWorkspace request) {
        if (caller.boundTo().isPresent()) {
            throw new ApiException(ErrorCode.FORBIDDEN, "an API key acts in its own workspace only; "
                    + "create workspaces with an access token");
        }
        String name = Validate.dnsLabel("name", request.name());
        Instant now = now();
        var workspace = new Workspace(Ids.next(), name, Workspace.State.ACTIVE, now, now, null);
        return Constraints.unique(() -> jdbi.inTransaction(h -> {
            requireFreeName(h, name);
            workspaces.insert(h, workspace);
            founding.founded(h, workspace, caller, now);
            return workspace;
        }), () -> taken(name));
    }

    public Page<Workspace> list(Caller caller, PageRequest page) {
        var rows = jdbi.withHandle(h -> workspaces.memberships(h, caller.id(), page)).stream()
                .filter(m -> visible(caller, m)).toList();
        return Page.of(rows, page.limit(), m -> m.workspace().id()).map(Membership::workspace);
    }

    /** Every live workspace of the caller with its role, for /me: an API key's own, with the key's role. */
    public List<Membership> memberships(Caller caller) {
        return jdbi.withHandle(h -> workspaces.memberships(h, caller.id(), new PageRequest(Integer.MAX_VALUE - 1,
                Optional.empty()))).stream().filter(m -> visible(caller, m))
                .map(m -> caller.boundTo().filter(k -> !k.role().atLeast(m.role()))
                        .map(k -> new Membership(m.workspace(), k.role())).orElse(m)).toList();
    }

    private static boolean visible(Caller caller, Membership m) {
        return caller.boundTo().map(k -> k.workspace().equals(m.workspace().id())).orElse(true);
    }

    public Workspace rename(Workspace workspace, UpdateWorkspace request) {
        String name = Validate.dnsLabel("name", request.name());
        Instant now = now();
        return Constraints.unique(() -> jdbi.inTransaction(h -> {
            if (!name.equals(workspace.name())) {
                requireFreeName(h, name);
                contents.forEach(kind -> kind.names().check(h, workspace.id(), name));
                workspaces.rename(h, workspace.id(), name, now);
            }
            return workspaces.findLive(h, workspace.id()).orElseThrow(() -> ApiException.notFound("workspace"));
        }), () -> taken(name));
    }

    /** Marks the workspace deleted; refused while it still holds resources. */
    public Workspace delete(Workspace workspace) {
        Instant now = now();
        return jdbi.inTransaction(h -> {
            var held = new LinkedHashMap<String, Object>();
            for (var kind : contents) {
                long n = kind.count(h, workspace.id());
                if (n > 0) {
                    held.put(kind.noun(), n);
                }
            }
            if (!held.isEmpty()) {
                throw new ApiException(ErrorCode.NOT_EMPTY, "workspace " + workspace.name()
                        + " still holds " + String.join(", ", held.keySet()) + "; delete them first", held);
            }
            workspaces.markDeleted(h, workspace.id(), now);
            return new Workspace(workspace.id(), workspace.name(), workspace.state(), workspace.createdAt(), now, now);
        });
    }

    private void requireFreeName(Handle h, String name) {
        if (workspaces.findLive(h, name).filter(w -> w.name().equals(name)).isPresent()) {
            throw taken(name);
        }
    }

    private static ApiException taken(String name) {
        return ApiException.conflict("a workspace named " + name + " already exists");
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
