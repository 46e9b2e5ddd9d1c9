package dev.hearth.server.http;

import dev.hearth.server.tenancy.Action;
import dev.hearth.server.tenancy.Caller;
import dev.hearth.server.tenancy.Membership;
import java.util.Optional;

/**
 * Who is calling, and whether they may act where a route's {@link Scope} points: the one place
 * permissions are enforced, answered by the auth and access rules below this layer.
 */
public interface Guard {
    /** The caller a bearer token names; 401 without a valid one. */
    Caller authenticate(String authorizationHeader);

    /**
     * The same, for a request this node relays to the node that runs what it names, which checks
     * the caller's key or session again: that check may be remembered here for a few seconds.
     */
    default Caller authenticateToRelay(String authorizationHeader) {
        return authenticate(authorizationHeader);
    }

    /**
     * The Authorization ({@code Bearer ...}) a request sent with the web console's cookie is served
     * with; 401 for a cookie whose sign-in ended.
     */
    String consoleAuthorization(String cookie);

    /** The caller's membership of a workspace (id or name), if its role allows {@code action}; else 403 or 404. */
    Membership authorize(Caller caller, String workspaceRef, Action action);

    /** The same for the workspace holding the resource an item route names (by id, or by name in {@code workspaceRef}). */
    Membership authorize(Caller caller, Scope.OfResource scope, String ref, Optional<String> workspaceRef);
}
