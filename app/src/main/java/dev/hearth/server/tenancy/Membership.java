package dev.hearth.server.tenancy;

import dev.hearth.api.tenancy.Role;
import dev.hearth.api.tenancy.Workspace;

/** A principal's place in a workspace: the workspace, and the role it holds there. */
public record Membership(Workspace workspace, Role role) {
}
