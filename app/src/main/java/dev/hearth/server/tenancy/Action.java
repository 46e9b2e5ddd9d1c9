package dev.hearth.server.tenancy;

import dev.hearth.api.tenancy.Role;

/**
 * The role table: every workspace-scoped operation and the weakest role that may perform it.
 * Viewers read; editors also create, change, delete, exec and read secrets; admins also manage
 * access, invitations and the workspace itself. Adding a route means adding (or reusing) one row.
 */
public enum Action {
    WORKSPACE_READ(Role.VIEWER),
    WORKSPACE_UPDATE(Role.ADMIN),
    WORKSPACE_DELETE(Role.ADMIN),
    ACCESS_READ(Role.VIEWER),
    ACCESS_MANAGE(Role.ADMIN),
    VARIABLE_READ(Role.VIEWER),
    VARIABLE_WRITE(Role.EDITOR),
    /** Reading a secret's value (variables' values, connection passwords). */
    SECRET_READ(Role.EDITOR),
    INVITATION_MANAGE(Role.ADMIN),
    /** API keys: anyone may make and revoke their own (at most their role); admins revoke anyone's. */
    API_KEYS(Role.VIEWER),
    OPERATION_READ(Role.VIEWER),
    COMPUTER_READ(Role.VIEWER),
    COMPUTER_WRITE(Role.EDITOR),
    COMPUTER_EXEC(Role.EDITOR),
    DATABASE_READ(Role.VIEWER),
    DATABASE_WRITE(Role.EDITOR),
    /** Saved SQL queries: text any member reads; editors keep, change and delete them. */
    QUERY_READ(Role.VIEWER),
    QUERY_WRITE(Role.EDITOR);

    private final Role minimum;

    Action(Role minimum) {
        this.minimum = minimum;
    }

    public Role minimum() {
        return minimum;
    }
}
