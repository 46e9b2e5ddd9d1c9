package dev.hearth.server.http;

import dev.hearth.server.access.Action;

/** Who may call a route: anyone, any signed-in principal, or a principal with a role in the route's workspace. */
public sealed interface Scope {
    record Public() implements Scope {
    }

    record SignedIn() implements Scope {
    }

    /** The workspace is the path parameter {@code ws} (an id or a name). */
    record InWorkspace(Action action) implements Scope {
    }

    static Scope anyone() {
        return new Public();
    }

    static Scope signedIn() {
        return new SignedIn();
    }

    static Scope workspace(Action action) {
        return new InWorkspace(action);
    }
}
