package dev.hearth.server.auth;

import dev.hearth.server.access.Authorizer;
import dev.hearth.server.http.Guard;
import dev.hearth.server.http.Scope;
import dev.hearth.server.tenancy.Action;
import dev.hearth.server.tenancy.Caller;
import dev.hearth.server.tenancy.Membership;
import java.util.Optional;

/**
 * The HTTP layer's guard: tokens checked by the {@link Authenticator}, the console's cookies by
 * {@link ConsoleSessions}, roles by the {@link Authorizer}.
 */
public final class RequestGuard implements Guard {
    private final Authenticator authenticator;
    private final Authorizer authorizer;

    private final ConsoleSessions console;

    public RequestGuard(Authenticator authenticator, Authorizer authorizer, ConsoleSessions console) {
        this.authenticator = authenticator;
        this.authorizer = authorizer;
        this.console = console;
    }

    @Override
    public String consoleAuthorization(String cookie) {
        return console.authorization(cookie);
    }

    @Override
    public Caller authenticate(String authorizationHeader) {
        return authenticator.authenticate(authorizationHeader);
    }

    @Override
    public Caller authenticateToRelay(String authorizationHeader) {
        return authenticator.authenticateToRelay(authorizationHeader);
    }

    @Override
    public Membership authorize(Caller caller, String workspaceRef, Action action) {
        return authorizer.authorize(caller, workspaceRef, action);
    }

    @Override
    public Membership authorize(Caller caller, Scope.OfResource scope, String ref, Optional<String> workspaceRef) {
        return authorizer.authorize(caller, scope, ref, workspaceRef);
    }
}
