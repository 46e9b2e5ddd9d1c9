package dev.hearth.server.http;

import dev.hearth.server.tenancy.Action;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * Who may call a route: anyone, any signed-in principal, or a principal with a role in the
 * workspace the route acts on. That workspace is the path parameter {@code ws}, or the workspace of
 * the resource a top-level item route names.
 */
public sealed interface Scope {
    record Public() implements Scope {
    }

    record SignedIn() implements Scope {
    }

    /** The server's operator (see {@code Principal.operator}): the cluster's nodes. */
    record Operator() implements Scope {
    }

    /** The workspace is the path parameter {@code ws} (an id or a name). */
    record InWorkspace(Action action) implements Scope {
    }

    /**
     * The workspace is the one holding the resource named by path parameter {@code param} (an id,
     * or a name together with {@code ?workspace=}).
     */
    record OfResource(String param, String noun, Locator locator, Action action) implements Scope {
    }

    /** Finds which workspace holds a resource, given its id, or its name within {@code within}. */
    @FunctionalInterface
    interface Locator {
        Optional<String> workspaceOf(Handle h, String idOrName, Optional<String> withinWorkspaceId);
    }

    static Scope anyone() {
        return new Public();
    }

    static Scope signedIn() {
        return new SignedIn();
    }

    static Scope operator() {
        return new Operator();
    }

    static Scope workspace(Action action) {
        return new InWorkspace(action);
    }

    static Scope resource(String param, String noun, Locator locator, Action action) {
        return new OfResource(param, noun, locator, action);
    }
}
